import { z } from 'zod';
import { route, type RouteDefinition } from '../http/route.js';
import { zText } from '../http/schemas.js';
import type { Services } from '../services/index.js';
import { RUN_ACTIONS } from '../services/runs.js';
import { zObjectName } from './sessions.js';

const STATUSES = [
  'WAITING',
  'QUEUED',
  'INIT',
  'RUNNING',
  'COMPLETED',
  'ERROR',
  'PAUSED',
  'STOPPED',
  'SKIPPING',
  'SCHEDULED',
] as const;
const zDate = z.string().describe('ISO date; 0001-01-01T00:00:00Z when unset.');
const zHistory = z.array(
  z.strictObject({
    username: z
      .string()
      .describe(
        'Who did it: the username (e-mail) of the user; the user id when the user is gone; empty for a sandbox or the platform.',
      ),
    sandbox: z.string(),
    action: z.string(),
    time: zDate,
  }),
);
const zGroupName = z
  .string()
  .describe('The name of the group (`group` is its id); empty when the group is gone.');
const zVar = z.strictObject({ name: z.string(), value: z.string() });
const zEdge = z.strictObject({
  id: z.string(),
  from: z.string(),
  to: z.string(),
  type: z.enum(['single', 'multi', 'switchInput', 'switchOutput', 'start']),
  condition: z.enum(['primary', 'starting']).optional(),
  switchCondition: z.enum(['success', 'fail']).optional(),
  instanceType: z.enum(['line', 'file']).optional(),
  instanceInput: z.string().optional(),
  instanceNumber: z.number().int().optional(),
});
const zRun = z.strictObject({
  uuid: z.string(),
  _id: z.string(),
  name: z.string(),
  session: z.string(),
  parent_id: z.string(),
  trigger: z.string(),
  status: z.enum([...STATUSES, 'DELETED']),
  message: z.string(),
  start: zDate,
  stop: zDate,
  group: z.string(),
  group_name: zGroupName,
  owner: z.string(),
  history: zHistory,
  sandbox_statuses: z.array(
    z.strictObject({
      id: z.string(),
      name: z.string(),
      status: z.enum(STATUSES),
      history: zHistory,
      cluster_manager_host: z.string(),
      start: zDate,
      stop: zDate,
      sub_sandbox: z.array(
        z.strictObject({
          name: z.string(),
          status: z.enum(STATUSES),
          history: zHistory,
          cluster_manager_host: z.string(),
        }),
      ),
    }),
  ),
  workflow: z.strictObject({
    name: z.string(),
    version: z.string(),
    nodes: z.array(
      z.strictObject({
        id: z.string(),
        name: z.string(),
        x: z.number().nullable(),
        y: z.number().nullable(),
        src_id: z.string(),
        owner: z.string(),
        continueOnFail: z.boolean(),
        variables: z.array(zVar),
      }),
    ),
    switches: z.array(z.strictObject({ id: z.string(), x: z.number().nullable(), y: z.number().nullable() })),
    edges: z.array(zEdge),
    conditionEdges: z.array(zEdge),
  }),
  outputs: z.array(
    z.strictObject({
      name: z.string(),
      sandbox: z.string(),
      size: z.number(),
      creation_time: zDate,
      path: z.string(),
    }),
  ),
});
const zRow = z.strictObject({
  uuid: z.string(),
  name: z.string(),
  status: z.enum(STATUSES),
  start: zDate,
  stop: zDate,
  group: z.string(),
  group_name: zGroupName,
  trigger: z.string(),
});

const zRunVariables = z.strictObject({
  compiled: z
    .boolean()
    .describe(
      'Whether the run’s Argo Workflow was there to read; false before the run is admitted (or once it is gone), with no sandboxes.',
    ),
  sandboxes: z.array(
    z.strictObject({
      id: z.string().describe('Graph node id.'),
      name: z.string().describe('Sandbox (node) name.'),
      variables: z.array(
        z.strictObject({
          name: z.string(),
          value: z.string(),
          source: z
            .enum(['session', 'workflow', 'sandbox', 'unknown'])
            .describe(
              'The layer holding this value now: the session’s override, the workflow node, the sandbox’s default; unknown when none does any more (changed since the run).',
            ),
        }),
      ),
    }),
  ),
});

export function runRoutes(services: Services): RouteDefinition[] {
  const { runs, runFiles } = services;
  const list = (type: 'schedule' | 'event') =>
    route({
      method: 'get',
      path: `/${type}/:uuid/run`,
      tag: 'runs',
      summary: `The runs of a session, newest first (GET /{type}/{uuid}/run, type ${type}): uuid, start, status…`,
      params: z.object({ uuid: zObjectName }).strict(),
      result: z.array(zRow),
      async handler({ caller, params }) {
        return runs.list(caller!, params.uuid);
      },
    });
  return [
    route({
      method: 'get',
      path: '/run/:uuid',
      tag: 'runs',
      summary: 'A run with its sandbox statuses (and dynamic instances), history, graph and output files.',
      params: z.object({ uuid: zObjectName }).strict(),
      result: zRun,
      async handler({ caller, params }) {
        return runs.get(caller!, params.uuid);
      },
    }),
    route({
      method: 'get',
      path: '/run/:uuid/variables',
      tag: 'runs',
      summary:
        'The variables each sandbox of a run ran with (the environment compiled into its Argo Workflow, without the platform’s SANDFLOW_*), with where each value comes from.',
      params: z.object({ uuid: zObjectName }).strict(),
      result: zRunVariables,
      async handler({ caller, params }) {
        return runFiles.variables(caller!, params.uuid);
      },
    }),
    route({
      method: 'put',
      path: '/run/:uuid',
      tag: 'runs',
      summary:
        'Ask for an action (spec 2 §4); 409 naming the state when the run’s state does not allow it (nothing written). The operator carries it out.',
      params: z.object({ uuid: zObjectName }).strict(),
      body: z
        .object({
          action: z.enum(RUN_ACTIONS),
          sandbox: zText(253, { min: 1 }).optional().describe('restart_from: the sandbox (node name or id).'),
        })
        .strict(),
      result: zRun,
      async handler({ caller, params, body }) {
        return runs.act(caller!, params.uuid, body.action, body.sandbox);
      },
    }),
    list('schedule'),
    list('event'),
  ];
}
