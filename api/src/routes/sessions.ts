import { z } from 'zod';
import { route, type RouteDefinition } from '../http/route.js';
import { zBool, zEmail, zNumber, zText } from '../http/schemas.js';
import type { Services } from '../services/index.js';
import { PERIODS } from '../services/sessions-form.js';
import { zTimestamp } from './results.js';

// Shapes and limits here; the rules of spec 2 §5 (periods, workflow, group, quotas) are the service's.

/** metadata.name: a uuid for the API's objects, any DNS-1123 name for kubectl's. */
export const zObjectName = z
  .string()
  .max(253, 'at most 253 characters')
  .regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, 'must be an id (a DNS-1123 name)');
const uuidParams = z.object({ uuid: zObjectName }).strict();

const zPeriod = z.enum(PERIODS);
const zPeriodValue = zNumber.pipe(z.number().int().min(0).max(1_000_000));
const zSchedule = z
  .object({
    start: zTimestamp,
    periodic: zBool.optional().describe('Ignored: a label with a value of at least 1 makes it periodic.'),
    periodic_label: zPeriod.nullable().optional(),
    periodic_value: zPeriodValue.optional(),
    end: zTimestamp.nullable().optional().describe('Kept only for a periodic plan; not before start.'),
  })
  .strict();
const zEvent = z
  .object({
    url: zText(2048, { min: 1, minMessage: 'must not be empty' }),
    expect: zText(1000, { trim: false })
      .optional()
      .describe(
        'Three digits: the status code to expect; other text: what the body must contain; empty: any 2xx.',
      ),
    periodic: zBool.optional(),
    periodic_label: zPeriod.nullable().optional(),
    periodic_value: zPeriodValue.optional(),
    end: zTimestamp.nullable().optional(),
  })
  .strict();
const zResourceValue = zNumber.pipe(z.number().min(0).max(1e9));
const zSessionBody = z
  .object({
    uuid: zObjectName.optional().describe('POST /session/instance: the session to update; else ignored.'),
    name: zText(253, { min: 1, minMessage: 'must not be empty' }),
    workflow_uuid: zObjectName,
    group: zText(64, { min: 1, minMessage: 'must not be empty' }),
    type: z.enum(['schedule', 'event']).optional(),
    schedules: z.array(zSchedule).max(100, 'at most 100 schedules').optional(),
    events: z.array(zEvent).max(20, 'at most 20 events').optional(),
    attempts: zNumber.pipe(z.number().int().min(1).max(100)).optional(),
    notifications: z.array(zEmail).max(100, 'at most 100 addresses').optional(),
    notify_group: zBool.optional(),
    notify_organization: zBool.optional(),
    session_variables: z
      .record(
        zText(253),
        z
          .array(
            z.object({ name: zText(256, { trim: false }), value: zText(10_000, { trim: false }) }).strict(),
          )
          .max(500),
      )
      .optional()
      .describe('Per sandbox (node id or name): variables overriding the workflow’s.'),
    sandbox_resources: z
      .record(
        zText(253),
        z.object({ cpu: zResourceValue, memory: zResourceValue, disk: zResourceValue }).strict(),
      )
      .optional()
      .describe('Per sandbox (node id or name): cpu in millicores, memory and disk in MB.'),
    cluster_pref: z.array(zText(253)).max(1, 'one cluster manager at most').optional(),
    has_cluster_pref: zBool.optional(),
  })
  .strict();

const zPlan = z.strictObject({
  kind: z.enum(['schedule', 'event']),
  start: z.string().nullable(),
  url: z.string().nullable(),
  periodic_label: zPeriod.nullable(),
  periodic_value: z.number().int(),
  end: z.string().nullable(),
});
const zListItem = z.strictObject({
  uuid: z.string(),
  name: z.string(),
  workflow: z
    .string()
    .nullable()
    .describe("The workflow's name; null when it is gone ('No workflow found.')."),
  workflow_uuid: z.string(),
  group: z.string(),
  creation_time: zTimestamp,
  type: z.enum(['schedule', 'event']),
  error: z.boolean().describe('The latest run ended in ERROR.'),
  general_error: z.boolean().describe('The operator could not schedule the session (status Invalid).'),
  running: z.boolean(),
  has_run_list: z.boolean(),
  next_run: z.string().nullable(),
  run_count: z.number().int(),
  active: z.boolean().describe('A plan may still start runs (schedule column: Active, else Completed).'),
  plans: z.array(zPlan),
});
const zDetail = z.strictObject({
  ...zListItem.shape,
  attempts: z.number().int(),
  notifications: z.array(z.string()),
  notify_group: z.boolean(),
  notify_organization: z.boolean(),
  schedules: z.array(
    z.strictObject({
      start: zTimestamp,
      periodic: z.boolean(),
      periodic_label: zPeriod.nullable(),
      periodic_value: z.number().int(),
      end: z.string().nullable(),
    }),
  ),
  events: z.array(
    z.strictObject({
      url: z.string(),
      expect: z.string(),
      periodic: z.boolean(),
      periodic_label: zPeriod.nullable(),
      periodic_value: z.number().int(),
      end: z.string().nullable(),
    }),
  ),
  session_variables: z.record(z.string(), z.array(z.strictObject({ name: z.string(), value: z.string() }))),
  sandbox_resources: z.record(
    z.string(),
    z.strictObject({ cpu: z.number(), memory: z.number(), disk: z.number() }),
  ),
  cluster_pref: z.array(z.string()),
  has_cluster_pref: z.boolean(),
  webhook: z.boolean().describe('A webhook secret is set.'),
  user_access: z.strictObject({
    read: z.boolean(),
    write: z.boolean(),
    execute: z.boolean(),
    owner: z.boolean(),
  }),
});
const zSaved = z.strictObject({ uuid: z.string(), name: z.string() });
const zStarted = z.strictObject({
  schedule_id: z.string().describe('The session.'),
  run_uuid: z.string().describe('The run just created.'),
});

export function sessionRoutes(services: Services): RouteDefinition[] {
  const { sessions } = services;
  const detail = (type: 'schedule' | 'event') =>
    route({
      method: 'get',
      path: `/${type}/:uuid`,
      tag: 'sessions',
      summary: `A session with its plans, variables, resources and preferences (GET /{type}/{uuid}, type ${type}).`,
      params: uuidParams,
      result: zDetail,
      async handler({ caller, params }) {
        return sessions.get(caller!, params.uuid);
      },
    });
  return [
    route({
      method: 'get',
      path: '/session',
      tag: 'sessions',
      summary: 'The sessions of the caller’s organization they may see (their groups’), newest first.',
      result: z.array(zListItem),
      async handler({ caller }) {
        return sessions.list(caller!);
      },
    }),
    route({
      method: 'get',
      path: '/session/workflows',
      tag: 'sessions',
      summary: 'The workflows a session may run (invalid ones flagged: valid false).',
      result: z.array(
        z.strictObject({
          uuid: z.string(),
          name: z.string(),
          version: z.string(),
          valid: z.boolean().nullable(),
        }),
      ),
      async handler({ caller }) {
        return sessions.workflows(caller!);
      },
    }),
    route({
      method: 'post',
      path: '/session',
      tag: 'sessions',
      summary:
        'Save a new session in one of the caller’s groups; 400/422 naming the field of what spec 2 §5 refuses.',
      status: 201,
      bodyLimit: '2mb',
      body: zSessionBody,
      result: zSaved,
      async handler({ caller, body }) {
        return sessions.create(caller!, body);
      },
    }),
    route({
      method: 'post',
      path: '/session/instance',
      tag: 'sessions',
      summary: 'Start Now: save the form (uuid: update that session) and start a run.',
      status: 201,
      bodyLimit: '2mb',
      body: zSessionBody,
      result: zStarted,
      async handler({ caller, body }) {
        return sessions.instance(caller!, body);
      },
    }),
    route({
      method: 'post',
      path: '/session/fast',
      tag: 'sessions',
      summary: 'Start a run of a saved session now (members of its group).',
      status: 201,
      body: z.object({ uuid: zObjectName, workflow_uuid: zObjectName }).strict(),
      result: zStarted,
      async handler({ caller, body }) {
        return sessions.fast(caller!, body.uuid, body.workflow_uuid);
      },
    }),
    route({
      method: 'put',
      path: '/session/:uuid',
      tag: 'sessions',
      summary: 'Update a session (owner); its workflow and group stay.',
      params: uuidParams,
      bodyLimit: '2mb',
      body: zSessionBody,
      result: zSaved,
      async handler({ caller, params, body }) {
        return sessions.update(caller!, params.uuid, body);
      },
    }),
    route({
      method: 'post',
      path: '/session/:uuid/clone',
      tag: 'sessions',
      summary: 'Copy a session into one of the caller’s own (named <name>_copy), without its webhook.',
      status: 201,
      params: uuidParams,
      result: zSaved,
      async handler({ caller, params }) {
        return sessions.clone(caller!, params.uuid);
      },
    }),
    route({
      method: 'delete',
      path: '/session',
      tag: 'sessions',
      summary: 'Delete sessions and their runs (owner of every one; none is deleted when one is refused).',
      query: z
        .object({
          sessions: zText(20_000, { min: 1, minMessage: 'must name a session' })
            .transform((s) =>
              s
                .split(',')
                .map((x) => x.trim())
                .filter(Boolean),
            )
            .pipe(z.array(zObjectName).min(1).max(500, 'at most 500 sessions')),
        })
        .strict(),
      result: z.strictObject({ sessions: z.array(z.string()).describe('The deleted ids.') }),
      async handler({ caller, query }) {
        return sessions.remove(caller!, query.sessions);
      },
    }),
    route({
      method: 'post',
      path: '/session/:uuid/webhook',
      tag: 'sessions',
      summary:
        'A new webhook secret (owner): POST to the path it answers starts a run. Shown this once; the old one stops working.',
      params: uuidParams,
      result: z.strictObject({ secret: z.string(), path: z.string() }),
      async handler({ caller, params }) {
        return sessions.rotateWebhook(caller!, params.uuid);
      },
    }),
    route({
      method: 'delete',
      path: '/session/:uuid/webhook',
      tag: 'sessions',
      summary: 'Turn the webhook off (owner).',
      params: uuidParams,
      result: z.strictObject({ uuid: z.string() }),
      async handler({ caller, params }) {
        return sessions.removeWebhook(caller!, params.uuid);
      },
    }),
    route({
      method: 'post',
      path: '/hooks/session/:uuid/:secret',
      tag: 'sessions',
      summary:
        'The session webhook (no sign-in: the secret is the credential): starts a run; 404 when it does not match.',
      status: 201,
      params: z.object({ uuid: zObjectName, secret: zText(200, { min: 1 }) }).strict(),
      result: zStarted,
      async handler({ params }) {
        return sessions.hook(params.uuid, params.secret);
      },
    }),
    detail('schedule'),
    detail('event'),
  ];
}
