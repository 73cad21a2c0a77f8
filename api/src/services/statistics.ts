import type { Knex } from 'knex';
import type { Role } from '../authorization.js';
import { notFound, unprocessable } from '../errors.js';
import type { Resources } from '../resources/index.js';

/** Who asks, in which organization: administrator-type roles see every group of it. */
export interface StatisticsScope {
  userId: string;
  organizationId: string;
  role: Role | null;
}

const ADMIN_TYPES = new Set<Role | null>(['admin', 'organization_admin']);
const RUNNING = new Set(['INIT', 'RUNNING', 'PAUSED']);
const WAITING = new Set(['WAITING', 'QUEUED']);
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** Up to three days: hourly points; longer ranges: daily points. */
const HOURLY_UP_TO_MS = 3 * DAY_MS;

export interface Point {
  x: string;
  y: number;
}

export interface GroupStatistics {
  id: string;
  name: string;
  scheduled: number;
  running: number;
  success: number;
  failed: number;
  stopped: number;
  limit: { cpu: number; memory: number; disk: number };
  cpu: Point[];
  memory: Point[];
  disk: Point[];
}

export interface RunStatistics {
  run: string;
  session: string;
  session_name: string;
  group: string | null;
  status: 'COMPLETED' | 'ERROR' | 'STOPPED';
  start: string | null;
  stop: string;
  effective_time: number;
  allocated_cpu: number;
  allocated_memory: number;
  allocated_disk: number;
  steps: number;
}

const iso = (value: unknown): string => new Date(value as string).toISOString();

export function createStatisticsService(deps: { db: Knex; resources: Resources | null }) {
  const { db, resources } = deps;

  /** The groups the caller may read statistics of: all of the organization for admin types, else their own. */
  async function groupsOf(scope: StatisticsScope): Promise<{ id: string; name: string }[]> {
    const query = db('groups')
      .where('groups.organization_id', scope.organizationId)
      .orderBy([{ column: 'groups.name' }, { column: 'groups.id' }])
      .select('groups.id', 'groups.name');
    if (!ADMIN_TYPES.has(scope.role))
      query.whereIn('groups.id', db('group_members').where({ user_id: scope.userId }).select('group_id'));
    return query;
  }

  return {
    /** GET /statistic/options: the groups of the filter bar. */
    options: groupsOf,

    /**
     * POST /statistic/runs: per chosen group, run outcomes ended in [start, end), the runs waiting
     * and running now, the group's quota (the line charts' limit) and the mean allocation per
     * hour (ranges up to 3 days) or day: Σ(allocation × execution time) ÷ bucket length, each step
     * counted in the bucket it ended in.
     */
    async runs(
      scope: StatisticsScope,
      filter: { groups: string[]; start: Date; end: Date },
    ): Promise<GroupStatistics[]> {
      const visible = new Map((await groupsOf(scope)).map((g) => [g.id, g.name]));
      filter.groups.forEach((id, i) => {
        if (!visible.has(id)) throw unprocessable(`groups.${i}: no group ${id} you may see`, 'invalid_body');
      });
      const ids = [...new Set(filter.groups)];
      if (ids.length === 0) return [];
      const bucketMs = filter.end.getTime() - filter.start.getTime() <= HOURLY_UP_TO_MS ? HOUR_MS : DAY_MS;
      const unit = bucketMs === HOUR_MS ? 'hour' : 'day';
      const bucketNs = bucketMs * 1e6;
      const range = (q: Knex.QueryBuilder) =>
        q
          .where('organization_id', scope.organizationId)
          .whereIn('group_id', ids)
          .where('stopped_at', '>=', filter.start.toISOString())
          .where('stopped_at', '<', filter.end.toISOString());

      const outcomes: { group_id: string; success: string; failed: string; stopped: string }[] = await range(
        db('run_records'),
      )
        .groupBy('group_id')
        .select(
          'group_id',
          db.raw(`count(*) FILTER (WHERE status = 'COMPLETED')::int AS success`),
          db.raw(`count(*) FILTER (WHERE status = 'ERROR')::int AS failed`),
          db.raw(`count(*) FILTER (WHERE status = 'STOPPED')::int AS stopped`),
        );
      const series: { group_id: string; x: string; cpu: number; memory: number; disk: number }[] =
        await range(db('step_records'))
          .groupBy('group_id', 'x')
          .orderBy('x')
          .select(
            'group_id',
            db.raw(
              `to_char(date_trunc('${unit}', stopped_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS x`,
            ),
            db.raw('sum(cpu::float8 * duration_ns::float8) / ? AS cpu', [bucketNs]),
            db.raw('sum(memory::float8 * duration_ns::float8) / ? AS memory', [bucketNs]),
            db.raw('sum(disk::float8 * duration_ns::float8) / ? AS disk', [bucketNs]),
          );
      const quotas: { id: string; quota_cpu: number; quota_memory: number; quota_disk: number }[] = await db(
        'groups',
      )
        .whereIn('id', ids)
        .select('id', 'quota_cpu', 'quota_memory', 'quota_disk');

      return ids.map((id) => {
        const outcome = outcomes.find((o) => o.group_id === id);
        const quota = quotas.find((q) => q.id === id);
        const live = resources?.runs.byIndex('group', id) ?? [];
        const points = series.filter((p) => p.group_id === id);
        const line = (k: 'cpu' | 'memory' | 'disk') =>
          points.map((p) => ({ x: p.x, y: Math.round(Number(p[k]) * 1000) / 1000 }));
        return {
          id,
          name: visible.get(id)!,
          scheduled: live.filter((r) => WAITING.has(r.status?.phase ?? 'WAITING')).length,
          running: live.filter((r) => RUNNING.has(r.status?.phase ?? '')).length,
          success: Number(outcome?.success ?? 0),
          failed: Number(outcome?.failed ?? 0),
          stopped: Number(outcome?.stopped ?? 0),
          limit: {
            cpu: quota?.quota_cpu ?? 0,
            memory: quota?.quota_memory ?? 0,
            disk: quota?.quota_disk ?? 0,
          },
          cpu: line('cpu'),
          memory: line('memory'),
          disk: line('disk'),
        };
      });
    },

    /**
     * GET /statistic/runs/{run}: one recorded run's wall time (ms) and what its steps were
     * allocated in all. 404 when there is none in the organization or its group is not the caller's.
     */
    async run(scope: StatisticsScope, runName: string): Promise<RunStatistics> {
      const row = await db('run_records')
        .where({ organization_id: scope.organizationId, run_name: runName })
        .orderBy('stopped_at', 'desc')
        .first();
      if (!row) throw notFound('Run');
      if (!ADMIN_TYPES.has(scope.role)) {
        const member = row.group_id
          ? await db('group_members')
              .where({ group_id: row.group_id, user_id: scope.userId })
              .first('user_id')
          : null;
        if (!member && row.user_id !== scope.userId) throw notFound('Run');
      }
      const steps = await db('step_records')
        .where({ organization_id: scope.organizationId, run_uid: row.run_uid })
        .first(
          db.raw('count(*)::int AS steps'),
          db.raw('coalesce(sum(cpu), 0)::int AS cpu'),
          db.raw('coalesce(sum(memory), 0)::int AS memory'),
          db.raw('coalesce(sum(disk), 0)::int AS disk'),
          db.raw('coalesce(sum(duration_ns), 0)::text AS duration_ns'),
        );
      const effective = row.started_at
        ? new Date(row.stopped_at).getTime() - new Date(row.started_at).getTime()
        : Number(BigInt(steps.duration_ns) / 1_000_000n);
      return {
        run: row.run_name,
        session: row.session,
        session_name: row.session_name,
        group: row.group_id,
        status: row.status,
        start: row.started_at ? iso(row.started_at) : null,
        stop: iso(row.stopped_at),
        effective_time: Math.max(0, effective),
        allocated_cpu: Number(steps.cpu),
        allocated_memory: Number(steps.memory),
        allocated_disk: Number(steps.disk),
        steps: Number(steps.steps),
      };
    },
  };
}

export type StatisticsService = ReturnType<typeof createStatisticsService>;
