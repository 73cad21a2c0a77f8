import { z } from 'zod';
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

const MAX_RANGE_MS = 400 * 24 * 3_600_000;

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
    if (start > end)
      ctx.addIssue({ code: 'custom', path: ['start_date'], message: 'must not be after end_date' });
    else if (end - start > MAX_RANGE_MS)
      ctx.addIssue({ code: 'custom', path: ['end_date'], message: 'at most 400 days after start_date' });
  });

const zRunParams = z.object({ run: zUuid }).strict();

export function statisticsRoutes(services: Services): RouteDefinition[] {
  const { statistics } = services;
  const scopeOf = (
    caller: { userId: string },
    organizationId: string | null,
    role: Parameters<typeof statistics.options>[0]['role'],
  ) => ({
    userId: caller.userId,
    organizationId: organizationId ?? '',
    role,
  });
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
