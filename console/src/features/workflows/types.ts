// The workflow answers and bodies of spec 2 §3 / §7, as the OpenAPI document gives them.
import type { Result } from '../../api/answers';
import type { operations } from '../../api/schema.gen';

export type WorkflowPage = Result<'getWorkflow'>;
type ListEntry = WorkflowPage['workflows'][number];
/** GET /workflow item (spec 2 §3 'Workflow (list item)'); not the ?graph=true variant. */
export type WorkflowItem = Extract<ListEntry, { prettyOwner: string }>;
export type Visibility = WorkflowItem['visibility'];
export type VisibilityType = Visibility['type'];

/** GET /workflow/{uuid}, and what POST / PUT answer (spec 2 §3 'Workflow (saved)'). */
export type SavedWorkflow = Result<'getWorkflowUuid'>;

/** POST /workflow and PUT /workflow/{uuid}. */
export type WorkflowBody = operations['postWorkflow']['requestBody']['content']['application/json'];

type ListQuery = NonNullable<operations['getWorkflow']['parameters']['query']>;
export type WorkflowSort = NonNullable<ListQuery['sort']>;
export type PageSize = 15 | 30 | 50;
/** GET /workflow's query as the list keeps it (server-side paging from 0, sort, search, filters). */
export interface WorkflowListQuery {
  page: number;
  size: PageSize;
  sort: WorkflowSort;
  order: 'asc' | 'desc';
  search: string;
  mine: boolean;
  visibility: '' | VisibilityType;
  tag: string;
}
