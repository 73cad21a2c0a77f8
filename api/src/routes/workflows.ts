import { z } from 'zod';
import { route, type RouteDefinition } from '../http/route.js';
import { zBool, zNumber, zText } from '../http/schemas.js';
import type { Services } from '../services/index.js';
import { WORKFLOW_SORTS } from '../services/workflows.js';
import { zTimestamp } from './results.js';

// Shapes and limits only: the rules of spec 2 §5 (names, variables, duplicates, self edges,
// cycles, dangling edges, sandboxes) are the service's, answered as 400s with the spec's words.

/** Beyond these a body is refused (422 naming the limit); the editor is measured up to 5,000 nodes. */
export const WORKFLOW_LIMITS = { nodes: 5_000, edges: 20_000, switches: 2_000 } as const;

/** metadata.name: a uuid for the API's objects, any DNS-1123 name for kubectl's. */
const zObjectName = z
  .string()
  .max(253, 'at most 253 characters')
  .regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, 'must be a workflow id (a DNS-1123 name)');
const uuidParams = z.object({ uuid: zObjectName }).strict();

const zGraphId = zText(253, { min: 1, minMessage: 'must not be empty' });
const zPosition = z
  .number()
  .finite()
  .nullable()
  .optional()
  .describe('Canvas position; null: none (laid out by the editor).');
const zVariable = z
  .object({ name: zText(256, { trim: false }), value: zText(10_000, { trim: false }) })
  .strict();
const zVariables = z.array(zVariable).max(500, 'at most 500 variables');
const zVisibilityBody = z
  .object({
    type: z.enum(['private', 'public', 'group']),
    groups: z.array(zText(64)).max(200, 'at most 200 groups').optional(),
  })
  .strict();

const zNode = z
  .object({
    id: zGraphId,
    name: zText(253, { trim: false }).regex(/^[A-Za-z0-9_]*$/, 'letters, digits and underscore only'),
    x: zPosition,
    y: zPosition,
    src_id: zText(253).describe('The sandbox this node runs (its uuid).'),
    owner: zText(253).optional().describe("Ignored: a node's owner is its sandbox's."),
    continueOnFail: z.boolean().optional(),
    variables: zVariables.optional(),
  })
  .strict();
const zSwitch = z.object({ id: zGraphId, x: zPosition, y: zPosition }).strict();
const EDGE_TYPES = ['single', 'multi', 'switchInput', 'switchOutput', 'start'] as const;
const zEdgeFields = {
  id: zGraphId,
  from: zGraphId,
  to: zGraphId,
  type: z.enum(EDGE_TYPES).optional(),
  condition: z.enum(['primary', 'starting']).optional(),
  switchCondition: z.enum(['success', 'fail']).optional(),
  instanceType: z.enum(['line', 'file']).optional(),
  instanceInput: zText(4096, { trim: false }).optional(),
  instanceNumber: z.number().int().min(1).max(1_000_000).optional(),
};
const zEdge = z.object(zEdgeFields).strict();

const zWorkflowBody = z
  .object({
    uuid: zText(253).optional().describe('Ignored: the path names the workflow.'),
    name: zText(1000),
    version: zText(128).optional(),
    tags: z.array(zText(100)).max(50, 'at most 50 tags').optional(),
    visibility: zVisibilityBody.optional(),
    nodes: z.array(zNode).max(WORKFLOW_LIMITS.nodes, `at most ${WORKFLOW_LIMITS.nodes} nodes`),
    switches: z
      .array(zSwitch)
      .max(WORKFLOW_LIMITS.switches, `at most ${WORKFLOW_LIMITS.switches} switches`)
      .optional(),
    edges: z.array(zEdge).max(WORKFLOW_LIMITS.edges, `at most ${WORKFLOW_LIMITS.edges} edges`).optional(),
  })
  .strict();

const zVar = z.strictObject({ name: z.string(), value: z.string() });
const zNodeResult = z.strictObject({
  id: z.string(),
  name: z.string(),
  x: z.number().nullable(),
  y: z.number().nullable(),
  src_id: z.string(),
  owner: z.string(),
  continueOnFail: z.boolean(),
  variables: z.array(zVar),
});
const zSwitchResult = z.strictObject({ id: z.string(), x: z.number().nullable(), y: z.number().nullable() });
const zEdgeResult = z.strictObject({
  id: z.string(),
  from: z.string(),
  to: z.string(),
  type: z.enum(EDGE_TYPES).describe('As saved; when a kubectl object has none, what the graph makes it.'),
  condition: z.enum(['primary', 'starting']).optional(),
  switchCondition: z.enum(['success', 'fail']).optional(),
  instanceType: z.enum(['line', 'file']).optional(),
  instanceInput: z.string().optional(),
  instanceNumber: z.number().int().optional().describe('Absent: 1.'),
});
const zGraph = {
  nodes: z.array(zNodeResult),
  switches: z.array(zSwitchResult),
  edges: z.array(zEdgeResult),
};
const zValid = z
  .boolean()
  .nullable()
  .describe("The operator's status.valid; null while it has not validated the current version.");

const zListItem = z.strictObject({
  uuid: z.string(),
  name: z.string(),
  creationDate: zTimestamp,
  tags: z.array(z.string()),
  owner: z.string().describe('User id of the owner (empty when none).'),
  prettyOwner: z.string(),
  visibility: z.strictObject({ type: z.enum(['private', 'public', 'group']), groups: z.array(z.string()) }),
  sandboxes: z.array(z.strictObject({ sandbox_name: z.string(), variables: z.array(zVar) })),
  version: z.string(),
  valid: zValid,
  user_access: z
    .strictObject({ read: z.boolean(), write: z.boolean(), execute: z.boolean(), owner: z.boolean() })
    .describe("The caller's access: view, edit, use, and the owner's actions."),
});
const zGraphItem = z.strictObject({
  uuid: z.string(),
  name: z.string(),
  version: z.string(),
  tags: z.array(z.string()),
  valid: zValid,
  ...zGraph,
});
const zSaved = z.strictObject({
  ...zListItem.shape,
  ...zGraph,
  sandboxes: z.array(
    z.strictObject({
      sandbox_id: z.string().describe('The node id.'),
      sandbox_name: z.string(),
      owner: z.string(),
      sandbox_db: z.string().describe("The sandbox's stored id."),
      continue_on_fail: z.boolean(),
      variables: z.array(zVar),
      linked_to: z.array(
        z.strictObject({
          destination: z.string().describe('Node id of the successor.'),
          splitter: z.boolean().describe('A multi edge: the successor runs as dynamic instances.'),
          file: z.string().describe('instanceInput: the file (line) or folder (file) split.'),
          option: z.string().describe('instanceType of a multi edge: line or file; empty otherwise.'),
        }),
      ),
      conditions: z.array(
        z.strictObject({ destination: z.string(), condition: z.enum(['success', 'fail']) }),
      ),
    }),
  ),
  validation_message: z
    .string()
    .describe('The condition Valid message (kubectl describe); empty while pending.'),
  validation_errors: z.array(
    z.strictObject({ code: z.string(), message: z.string(), node_id: z.string(), edge_id: z.string() }),
  ),
});

const zListQuery = z
  .object({
    graph: zBool
      .optional()
      .describe('true: each workflow with its graph (nodes, edges, switches, tags, valid).'),
    page: zNumber.pipe(z.number().int().min(0).max(1e6)).default(0),
    size: z
      .union([z.literal(15), z.literal(30), z.literal(50), z.enum(['15', '30', '50']).transform(Number)])
      .default(30),
    sort: z.enum(WORKFLOW_SORTS).default('name'),
    order: z.enum(['asc', 'desc']).default('asc'),
    search: zText(200).optional().describe('Case-insensitive, over uuid, name, creation date and tags.'),
    mine: zBool.optional(),
    visibility: z.enum(['private', 'public', 'group']).optional(),
    tag: zText(100).optional(),
  })
  .strict();

export function workflowRoutes(services: Services): RouteDefinition[] {
  const { workflows } = services;
  return [
    route({
      method: 'get',
      path: '/workflow',
      tag: 'workflows',
      summary:
        'A page of the workflows the caller may see (search, mine, visibility, tag; sorted by name); ?graph=true: with their graphs.',
      query: zListQuery,
      result: z.strictObject({
        workflows: z.array(z.union([zListItem, zGraphItem])),
        total: z.number().int().describe('How many match, over all pages.'),
        page: z.number().int(),
        size: z.number().int(),
      }),
      async handler({ caller, query }) {
        return workflows.list(caller!, { ...query, size: query.size as 15 | 30 | 50 });
      },
    }),
    route({
      method: 'get',
      path: '/workflow/:uuid',
      tag: 'workflows',
      summary: 'One workflow: its graph, its sandboxes and its validity.',
      params: uuidParams,
      result: zSaved,
      async handler({ caller, params }) {
        return workflows.get(caller!, params.uuid);
      },
    }),
    route({
      method: 'post',
      path: '/workflow',
      tag: 'workflows',
      summary: 'Create a workflow (the editor’s Save); 400 naming the first rule of spec 2 §5 it breaks.',
      status: 201,
      bodyLimit: '8mb',
      body: zWorkflowBody,
      result: zSaved,
      async handler({ caller, body }) {
        return workflows.create(caller!, body);
      },
    }),
    route({
      method: 'put',
      path: '/workflow/:uuid',
      tag: 'workflows',
      summary: 'Update a workflow (owner): the whole graph.',
      params: uuidParams,
      bodyLimit: '8mb',
      body: zWorkflowBody,
      result: zSaved,
      async handler({ caller, params, body }) {
        return workflows.update(caller!, params.uuid, body);
      },
    }),
    route({
      method: 'delete',
      path: '/workflow',
      tag: 'workflows',
      summary: 'Delete workflows (owner of every one; none is deleted when one is refused).',
      body: z.object({ workflows: z.array(zObjectName).min(1).max(500, 'at most 500 workflows') }).strict(),
      result: z.strictObject({ workflows: z.array(z.string()).describe('The deleted ids.') }),
      async handler({ caller, body }) {
        return workflows.remove(caller!, body.workflows);
      },
    }),
    route({
      method: 'post',
      path: '/workflow/:uuid/clone',
      tag: 'workflows',
      summary: 'Clone a workflow the caller may see into one of their own (named <name>_copy).',
      status: 201,
      params: uuidParams,
      result: zSaved,
      async handler({ caller, params }) {
        return workflows.clone(caller!, params.uuid);
      },
    }),
    route({
      method: 'put',
      path: '/workflow/:uuid/name',
      tag: 'workflows',
      summary: 'Rename (owner).',
      params: uuidParams,
      body: z.object({ name: zText(1000) }).strict(),
      result: zSaved,
      async handler({ caller, params, body }) {
        return workflows.rename(caller!, params.uuid, body.name);
      },
    }),
    route({
      method: 'put',
      path: '/workflow/:uuid/variables/:sandbox',
      tag: 'workflows',
      summary: "Replace one node's variables (owner); the node by id, else by name.",
      params: z.object({ uuid: zObjectName, sandbox: zText(253, { min: 1 }) }).strict(),
      body: z.object({ variables: zVariables }).strict(),
      result: zSaved,
      async handler({ caller, params, body }) {
        return workflows.variables(caller!, params.uuid, params.sandbox, body.variables);
      },
    }),
    route({
      method: 'put',
      path: '/workflow/:uuid/visibility',
      tag: 'workflows',
      summary: "Who sees the workflow (owner): private, public, or some of the caller's own groups.",
      params: uuidParams,
      body: zVisibilityBody,
      result: zSaved,
      async handler({ caller, params, body }) {
        return workflows.visibility(caller!, params.uuid, body);
      },
    }),
  ];
}
