import type { Knex } from 'knex';
import type { Role } from '../authorization.js';
import { notFound, unprocessable } from '../errors.js';
import type { Resources } from '../resources/index.js';
import { allocationForRun } from './run-records.js';

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
const SPIKE_WINDOW_MS = 24 * HOUR_MS;

export interface ClusterStatistics {
  id: string;
  name: string;
  public: boolean;
  capacity: { cpu: number; memory: number; disk: number };
  cpu: Point[];
  memory: Point[];
  disk: Point[];
}

export interface Spike {
  spike_cpu: number;
  spike_memory: number;
  spike_disk: number;
  total_cpu: number;
  total_memory: number;
  total_disk: number;
  max_cpu: number;
  max_memory: number;
  max_disk: number;
}

export function createStatisticsService(deps: { db: Knex; resources: Resources | null }) {
  const { db, resources } = deps;

  /** Cluster usage samples the caller may read: all for the super admin, else public or assigned ones. */
  const visibleUsage = (scope: StatisticsScope) => {
    const q = db('cluster_usage');
    return scope.role === 'admin'
      ? q
      : q.where((w) =>
          w.where('is_public', true).orWhereRaw('?::uuid = ANY(organizations)', [scope.organizationId]),
        );
  };

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

  /** The groups' names; a group the caller may not read is a 422 naming `groups.<index>`. */
  async function checkGroups(scope: StatisticsScope, groups: string[]): Promise<Map<string, string>> {
    if (groups.length === 0) return new Map(); // nothing to check (the super admin may have no organization)
    const visible = new Map((await groupsOf(scope)).map((g) => [g.id, g.name]));
    groups.forEach((id, i) => {
      if (!visible.has(id)) throw unprocessable(`groups.${i}: no group ${id} you may see`, 'invalid_body');
    });
    return visible;
  }

  return {
    /** GET /statistic/options: the groups of the filter bar. */
    options: groupsOf,
    checkGroups,

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
      const visible = await checkGroups(scope, filter.groups);
      const ids = [...new Set(filter.groups)];
      if (ids.length === 0) return [];
      const bucketMs = filter.end.getTime() - filter.start.getTime() <= HOURLY_UP_TO_MS ? HOUR_MS : DAY_MS;
      const unit = bucketMs === HOUR_MS ? 'hour' : 'day';
      const bucketNs = bucketMs * 1e6;

      // The whole UTC hours of the range come from the hourly rollup (statistics_hourly: one row
      // per group and hour instead of the million step rows of a month, bench/statistics); only
      // the parts before the first and after the last whole hour are read from the records.
      const fromHour = Math.ceil(filter.start.getTime() / HOUR_MS) * HOUR_MS;
      const toHour = Math.floor(filter.end.getTime() / HOUR_MS) * HOUR_MS;
      const rolled = fromHour < toHour;
      const at = (ms: number) => new Date(ms).toISOString();
      const ofGroups = (q: Knex.QueryBuilder) =>
        q.where('organization_id', scope.organizationId).whereIn('group_id', ids);
      const wholeHours = (q: Knex.QueryBuilder) =>
        ofGroups(q).where('hour', '>=', at(fromHour)).where('hour', '<', at(toHour));
      const between = (w: Knex.QueryBuilder, from: string, to: string) =>
        w.where('stopped_at', '>=', from).where('stopped_at', '<', to);
      const edges = (q: Knex.QueryBuilder) =>
        ofGroups(q).where((w) =>
          rolled
            ? w
                .where((a) => between(a, filter.start.toISOString(), at(fromHour)))
                .orWhere((b) => between(b, at(toHour), filter.end.toISOString()))
            : between(w, filter.start.toISOString(), filter.end.toISOString()),
        );

      // Summed per group and bucket on the truncated timestamp, formatted only once per point
      // (grouping by the formatted text cost a per-row to_char and an on-disk sort). Exact sums
      // (numeric) of allocation × nanoseconds, divided by the bucket's length at the end.
      const stepParts = wholeHours(db('statistics_hourly'))
        .select(
          'group_id',
          db.raw(`date_trunc('${unit}', hour AT TIME ZONE 'UTC') AS bucket`),
          'cpu_ns',
          'memory_ns',
          'disk_ns',
        )
        .unionAll(
          edges(db('step_records')).select(
            'group_id',
            db.raw(`date_trunc('${unit}', stopped_at AT TIME ZONE 'UTC')`),
            db.raw('cpu::numeric * duration_ns'),
            db.raw('memory::numeric * duration_ns'),
            db.raw('disk::numeric * duration_ns'),
          ),
          true,
        )
        .as('parts');
      const perBucket = db
        .from(stepParts)
        .groupBy('group_id', 'bucket')
        .select(
          'group_id',
          'bucket',
          db.raw('(sum(cpu_ns) / ?)::float8 AS cpu', [bucketNs]),
          db.raw('(sum(memory_ns) / ?)::float8 AS memory', [bucketNs]),
          db.raw('(sum(disk_ns) / ?)::float8 AS disk', [bucketNs]),
        )
        .as('per_bucket');
      const runParts = wholeHours(db('statistics_hourly'))
        .select('group_id', 'success', 'failed', 'stopped')
        .unionAll(
          edges(db('run_records')).select(
            'group_id',
            db.raw(`(status = 'COMPLETED')::int`),
            db.raw(`(status = 'ERROR')::int`),
            db.raw(`(status = 'STOPPED')::int`),
          ),
          true,
        )
        .as('parts');
      // The three reads are independent, so they go out together.
      const [outcomes, series, quotas]: [
        { group_id: string; success: string; failed: string; stopped: string }[],
        { group_id: string; x: string; cpu: number; memory: number; disk: number }[],
        { id: string; quota_cpu: number; quota_memory: number; quota_disk: number }[],
      ] = await Promise.all([
        db
          .from(runParts)
          .groupBy('group_id')
          .select(
            'group_id',
            db.raw('sum(success)::int AS success'),
            db.raw('sum(failed)::int AS failed'),
            db.raw('sum(stopped)::int AS stopped'),
          ),
        db
          .from(perBucket)
          .orderBy('bucket')
          .select(
            'group_id',
            db.raw(`to_char(bucket, 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS x`),
            'cpu',
            'memory',
            'disk',
          ),
        db('groups').whereIn('id', ids).select('id', 'quota_cpu', 'quota_memory', 'quota_disk'),
      ]);

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
     * POST /statistic/clusters: per cluster manager the caller's organization may use, the peak
     * allocation sampled in each hour (ranges up to 3 days) or day of [start, end), and its latest capacity.
     */
    async clusters(scope: StatisticsScope, filter: { start: Date; end: Date }): Promise<ClusterStatistics[]> {
      const unit = filter.end.getTime() - filter.start.getTime() <= HOURLY_UP_TO_MS ? 'hour' : 'day';
      const rows: {
        cluster: string;
        x: string;
        cpu: number;
        memory: number;
        disk: number;
      }[] = await visibleUsage(scope)
        .where('minute', '>=', filter.start.toISOString())
        .where('minute', '<', filter.end.toISOString())
        .groupBy('cluster', 'x')
        .orderBy(['cluster', 'x'])
        .select(
          'cluster',
          db.raw(
            `to_char(date_trunc('${unit}', minute AT TIME ZONE 'UTC'), 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS x`,
          ),
          db.raw('max(used_cpu) AS cpu'),
          db.raw('max(used_memory) AS memory'),
          db.raw('max(used_disk) AS disk'),
        );
      const clusters = [...new Set(rows.map((r) => r.cluster))];
      if (clusters.length === 0) return [];
      const latest: Record<string, unknown>[] = await db('cluster_usage')
        .whereIn('cluster', clusters)
        .distinctOn('cluster')
        .orderBy([{ column: 'cluster' }, { column: 'minute', order: 'desc' }])
        .select('cluster', 'name', 'is_public', 'capacity_cpu', 'capacity_memory', 'capacity_disk');
      return clusters.map((id) => {
        const info = latest.find((l) => l.cluster === id)!;
        const points = rows.filter((r) => r.cluster === id);
        const line = (k: 'cpu' | 'memory' | 'disk') => points.map((p) => ({ x: p.x, y: Number(p[k]) }));
        return {
          id,
          name: info.name as string,
          public: info.is_public as boolean,
          capacity: {
            cpu: Number(info.capacity_cpu),
            memory: Number(info.capacity_memory),
            disk: Number(info.capacity_disk),
          },
          cpu: line('cpu'),
          memory: line('memory'),
          disk: line('disk'),
        };
      });
    },

    /**
     * GET /statistic/spike: over the last 24 hours of samples of the clusters the caller may read,
     * the peak allocated in one minute (spike_*), what was allocated at the latest sampled minute
     * (total_*) and the capacity then (max_*). Zeros without samples.
     */
    async spike(scope: StatisticsScope, now = Date.now()): Promise<Spike> {
      const perMinute = visibleUsage(scope)
        .where('minute', '>', new Date(now - SPIKE_WINDOW_MS).toISOString())
        .groupBy('minute')
        .select(
          'minute',
          db.raw('sum(used_cpu)::int AS cpu'),
          db.raw('sum(used_memory)::int AS memory'),
          db.raw('sum(used_disk)::int AS disk'),
          db.raw('sum(capacity_cpu)::int AS ccpu'),
          db.raw('sum(capacity_memory)::int AS cmemory'),
          db.raw('sum(capacity_disk)::int AS cdisk'),
        )
        .as('per_minute');
      const peak = await db
        .from(perMinute)
        .first(
          db.raw('coalesce(max(cpu), 0)::int AS cpu'),
          db.raw('coalesce(max(memory), 0)::int AS memory'),
          db.raw('coalesce(max(disk), 0)::int AS disk'),
        );
      const last = await db.from(perMinute.clone().as('per_minute')).orderBy('minute', 'desc').first();
      return {
        spike_cpu: Number(peak?.cpu ?? 0),
        spike_memory: Number(peak?.memory ?? 0),
        spike_disk: Number(peak?.disk ?? 0),
        total_cpu: Number(last?.cpu ?? 0),
        total_memory: Number(last?.memory ?? 0),
        total_disk: Number(last?.disk ?? 0),
        max_cpu: Number(last?.ccpu ?? 0),
        max_memory: Number(last?.cmemory ?? 0),
        max_disk: Number(last?.cdisk ?? 0),
      };
    },

    /**
     * GET /statistic/spike/free: per group of the caller (the options), its quota less what the
     * group's busy runs hold now (never below 0).
     */
    async free(
      scope: StatisticsScope,
    ): Promise<{ id: string; name: string; cpu: number; memory: number; disk: number }[]> {
      const groups = await groupsOf(scope);
      if (groups.length === 0) return [];
      const quotas: { id: string; quota_cpu: number; quota_memory: number; quota_disk: number }[] = await db(
        'groups',
      )
        .whereIn(
          'id',
          groups.map((g) => g.id),
        )
        .select('id', 'quota_cpu', 'quota_memory', 'quota_disk');
      const out = [];
      for (const g of groups) {
        const used = { cpu: 0, memory: 0, disk: 0 };
        for (const run of resources?.runs.byIndex('group', g.id) ?? []) {
          if (!RUNNING.has(run.status?.phase ?? '') || !resources) continue;
          const allocationOf = await allocationForRun(resources, run, scope.organizationId);
          for (const step of run.status?.sandboxStatuses ?? []) {
            if (step.status !== 'INIT' && step.status !== 'RUNNING') continue;
            const a = allocationOf(step);
            used.cpu += a.cpu;
            used.memory += a.memory;
            used.disk += a.disk;
          }
        }
        const q = quotas.find((r) => r.id === g.id);
        out.push({
          id: g.id,
          name: g.name,
          cpu: Math.max(0, (q?.quota_cpu ?? 0) - used.cpu),
          memory: Math.max(0, (q?.quota_memory ?? 0) - used.memory),
          disk: Math.max(0, (q?.quota_disk ?? 0) - used.disk),
        });
      }
      return out;
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
