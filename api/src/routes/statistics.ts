import { z } from 'zod';
import { noOrganization } from '../errors.js';
import { route, type RouteDefinition } from '../http/route.js';
import { zUuid } from '../http/schemas.js';
import type { Services } from '../services/index.js';
import { zIdName, zTimestamp } from './results.js';

const zPoint = z.strictObject({ x: zTimestamp, y: z.number() });

export const zGroupStatistics = z.strictObject({
  id: z.uuid(),
  name: z.string(),
  scheduled: z.number().int().describe('Runs of the group waiting or queued now.'),
  running: z.number().int().describe('Runs of the group initializing, running or paused now.'),
  success: z.number().int().describe('Runs that completed in the range.'),
  failed: z.number().int().describe('Runs that ended in error in the range.'),
  stopped: z.number().int().describe('Runs that were stopped in the range.'),
  limit: z
    .strictObject({ cpu: z.number(), memory: z.number(), disk: z.number() })
    .describe("The group's quota (millicores, MB, MB): the line charts' limit."),
  cpu: z.array(zPoint).describe('Mean millicores allocated per hour (ranges up to 3 days) or per day.'),
  memory: z.array(zPoint).describe('Mean MB of memory allocated per hour or day.'),
  disk: z.array(zPoint).describe('Mean MB of disk allocated per hour or day.'),
});

export const zRunStatistics = z.strictObject({
  run: z.string(),
  session: z.string(),
  session_name: z.string(),
  group: z.uuid().nullable(),
  status: z.enum(['COMPLETED', 'ERROR', 'STOPPED']),
  start: zTimestamp.nullable(),
  stop: zTimestamp,
  effective_time: z.number().int().describe('Milliseconds from start to stop.'),
  allocated_cpu: z.number().int().describe('Millicores, summed over the step executions.'),
  allocated_memory: z.number().int().describe('MB, summed over the step executions.'),
  allocated_disk: z.number().int().describe('MB, summed over the step executions.'),
  steps: z.number().int().describe('Step executions recorded.'),
});

const zCapacity = z.strictObject({ cpu: z.number(), memory: z.number(), disk: z.number() });

export const zClusterStatistics = z.strictObject({
  id: z.string().describe('The ClusterManager name.'),
  name: z.string(),
  public: z.boolean(),
  capacity: zCapacity.describe('At the latest sample (millicores, MB, MB).'),
  cpu: z.array(zPoint).describe('Peak millicores allocated per hour (ranges up to 3 days) or per day.'),
  memory: z.array(zPoint).describe('Peak MB of memory allocated per hour or day.'),
  disk: z.array(zPoint).describe('Peak MB of disk allocated per hour or day.'),
});

const n = (what: string) => z.number().describe(what);
export const zSpike = z.strictObject({
  spike_cpu: n('Peak millicores allocated in one minute of the last 24 hours.'),
  spike_memory: n('Peak MB of memory allocated in one minute of the last 24 hours.'),
  spike_disk: n('Peak MB of disk allocated in one minute of the last 24 hours.'),
  total_cpu: n('Millicores allocated at the latest sample.'),
  total_memory: n('MB of memory allocated at the latest sample.'),
  total_disk: n('MB of disk allocated at the latest sample.'),
  max_cpu: n('Millicores of capacity at the latest sample.'),
  max_memory: n('MB of memory capacity at the latest sample.'),
  max_disk: n('MB of disk capacity at the latest sample.'),
});

const MAX_RANGE_MS = 400 * 24 * 3_600_000;
const EARLIEST = Date.UTC(1970, 0, 1);
const LATEST = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

const zRange = z
  .object({
    groups: z.array(zUuid).max(200, 'at most 200 groups'),
    start_date: z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time' }),
    end_date: z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time' }),
  })
  .strict()
  .superRefine((value, ctx) => {
    const start = Date.parse(value.start_date);
    const end = Date.parse(value.end_date);
    // Year 0 or 10000 (after the offset) is past what the timestamp columns and toISOString share.
    if (start < EARLIEST)
      ctx.addIssue({ code: 'custom', path: ['start_date'], message: 'must be 1970-01-01 or later' });
    else if (end > LATEST)
      ctx.addIssue({ code: 'custom', path: ['end_date'], message: 'must be 9999-12-31 or earlier' });
    else if (start > end)
      ctx.addIssue({ code: 'custom', path: ['start_date'], message: 'must not be after end_date' });
    else if (end - start > MAX_RANGE_MS)
      ctx.addIssue({ code: 'custom', path: ['end_date'], message: 'at most 400 days after start_date' });
  });

const zRunParams = z.object({ run: zUuid }).strict();

export function statisticsRoutes(services: Services): RouteDefinition[] {
  const { statistics } = services;
  // The super admin reads every cluster manager's usage (spike, clusters) without choosing an
  // organization; everything else is of the current organization.
  const scopeOf = (
    caller: { userId: string },
    organizationId: string | null,
    role: Parameters<typeof statistics.options>[0]['role'],
    platformWide = false,
  ) => {
    if (!organizationId && !(platformWide && role === 'admin')) throw noOrganization();
    return { userId: caller.userId, organizationId: organizationId ?? '', role };
  };
  return [
    route({
      method: 'get',
      path: '/statistic/options',
      tag: 'statistics',
      summary:
        "The groups the statistics filter offers: all of the current organization's for administrator " +
        'roles, otherwise the groups the caller belongs to.',
      result: z.array(zIdName),
      async handler({ caller, organizationId, role }) {
        return statistics.options(scopeOf(caller!, organizationId, role));
      },
    }),
    route({
      method: 'post',
      path: '/statistic/runs',
      tag: 'statistics',
      summary:
        'Run outcomes and allocation series of the chosen groups for runs ended in [start_date, end_date), ' +
        'from the durable run records. A group the caller may not read is a 422 naming it.',
      body: zRange,
      result: z.array(zGroupStatistics),
      async handler({ caller, organizationId, role, body }) {
        return statistics.runs(scopeOf(caller!, organizationId, role), {
          groups: body.groups,
          start: new Date(body.start_date),
          end: new Date(body.end_date),
        });
      },
    }),
    route({
      method: 'post',
      path: '/statistic/clusters',
      tag: 'statistics',
      summary:
        'Allocation of the cluster managers the organization may use (all for the super admin), sampled ' +
        'every minute: peaks per hour or day of [start_date, end_date). The groups are checked as for ' +
        'POST /statistic/runs.',
      body: zRange,
      result: z.array(zClusterStatistics),
      async handler({ caller, organizationId, role, body }) {
        const scope = scopeOf(caller!, organizationId, role, true);
        await statistics.checkGroups(scope, body.groups);
        return statistics.clusters(scope, { start: new Date(body.start_date), end: new Date(body.end_date) });
      },
    }),
    route({
      method: 'get',
      path: '/statistic/spike',
      tag: 'statistics',
      summary:
        'Peak, current and capacity of the cluster managers the organization may use over the last 24 hours.',
      result: zSpike,
      async handler({ caller, organizationId, role }) {
        return statistics.spike(scopeOf(caller!, organizationId, role, true));
      },
    }),
    route({
      method: 'get',
      path: '/statistic/spike/free',
      tag: 'statistics',
      summary:
        "Per group of the caller's, its quota less what its running steps hold now (millicores, MB, MB).",
      result: z.array(
        z.strictObject({
          id: z.uuid(),
          name: z.string(),
          cpu: z.number(),
          memory: z.number(),
          disk: z.number(),
        }),
      ),
      async handler({ caller, organizationId, role }) {
        return statistics.free(scopeOf(caller!, organizationId, role));
      },
    }),
    route({
      method: 'get',
      path: '/statistic/runs/:run',
      tag: 'statistics',
      summary:
        "One ended run's statistics (run comparison): wall time and the allocations of its steps. " +
        "404 for a run not recorded in the current organization or outside the caller's groups.",
      params: zRunParams,
      result: zRunStatistics,
      async handler({ caller, organizationId, role, params }) {
        return statistics.run(scopeOf(caller!, organizationId, role), params.run);
      },
    }),
  ];
}
