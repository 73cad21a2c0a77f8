// The sandbox and builder answers and bodies, as the OpenAPI document gives them (spec 1 §3, §7.2).
import type { Result } from '../../api/answers';
import type { operations } from '../../api/schema.gen';

type ListResult = Result<'getSandbox'>;
/** One page of GET /sandbox (not the ?execution=true grouping). */
export type SandboxPage = Extract<ListResult, { sandboxes: unknown }>;
export type Sandbox = SandboxPage['sandboxes'][number];
export type Architecture = Sandbox['architecture'];
export const ARCHITECTURES: readonly Architecture[] = ['amd64', 'arm'];
export type Permissions = Sandbox['permissions'];
export type Permission = Permissions[string];
export type Variable = Sandbox['variables'][number];
export type Constraints = Sandbox['constraints'];
export type Visibility = Sandbox['visibility'];

type ListQuery = NonNullable<operations['getSandbox']['parameters']['query']>;
export type SortColumn = NonNullable<ListQuery['sort']>;
/** GET /sandbox's query as the list keeps it (server-side paging from 0, sort, search, filters). */
export interface SandboxListQuery {
  page: number;
  size: number;
  sort: SortColumn;
  order: 'asc' | 'desc';
  search: string;
  mine: boolean;
  visibility: '' | NonNullable<ListQuery['visibility']>;
  tag: string;
}

/** DELETE /sandbox?force= */
export type DeleteAnswer = Result<'deleteSandbox'>;
export type BlockingWorkflow = DeleteAnswer['workflows'][number];

/** POST /sandbox and PUT /sandbox/{uuid}: the Sandbox form of spec 1 §3. */
export type SandboxBody = operations['postSandbox']['requestBody']['content']['application/json'];

/** GET /image/{name} */
export type ImageCheck = Result<'getImageName'>;
