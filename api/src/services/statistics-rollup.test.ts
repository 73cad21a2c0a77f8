import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as hourlyMigration from '../../migrations/20261123221500_statistics_hourly.js';
import { openReplicaDatabase } from '../test-support/database.js';
import { createGroup, type GroupFixture } from '../test-support/fixtures.js';
import { createTestDatabase, destroyTestDatabase } from '../test-support/index.js';
import { createWorld, type World } from '../test-support/world.js';
import { saveRunRecords } from './run-records.js';
import { runRecordsOf, seedRunRecord, type SeedRun } from './statistics-fixtures.js';
import { rebuildStatisticsRollup } from './statistics-rollup.js';
import { createStatisticsService } from './statistics.js';

/**
 * The hourly statistics rollup against the records it summarizes, over seeded runs of known
 * totals (allocation × duration in millicore-, MB-nanoseconds):
 *  r1 Alpha COMPLETED ended 10:40  s1 500m/512MB/100MB 10:00–10:30, s2 1000m/1024MB/200MB 10:30–10:40
 *  r2 Alpha ERROR     ended 13:20  s  2000m/4096MB/100MB 12:00–13:20
 *  r3 Others STOPPED  ended 11:05  s  250m/256MB/100MB 10:05–11:05
 *  r4 Alpha COMPLETED ended 00:30 the next day  s 500m/512MB/100MB 23:45–00:30
 *  r5 Beta (organization B) COMPLETED ended 10:50  s 500m/512MB/100MB 10:00–10:50
 */
let db: Knex;
let w: World;
let others: GroupFixture;

const MIN_NS = 60_000_000_000n;
const day = (time: string) => `2026-11-01T${time}:00Z`;

const seeds = (): SeedRun[] => [
  {
    organizationId: w.a.org.id,
    groupId: w.a.group.id,
    userId: w.a.user.id,
    start: day('10:00'),
    stop: day('10:40'),
    steps: [
      { name: 's1', cpu: 500, memory: 512, disk: 100, start: day('10:00'), stop: day('10:30') },
      { name: 's2', cpu: 1000, memory: 1024, disk: 200, start: day('10:30'), stop: day('10:40') },
    ],
  },
  {
    organizationId: w.a.org.id,
    groupId: w.a.group.id,
    userId: w.a.target.id,
    status: 'ERROR',
    start: day('12:00'),
    stop: day('13:20'),
    steps: [{ name: 's', cpu: 2000, memory: 4096, start: day('12:00'), stop: day('13:20'), status: 'ERROR' }],
  },
  {
    organizationId: w.a.org.id,
    groupId: others.id,
    userId: w.a.orgAdmin.id,
    status: 'STOPPED',
    start: day('10:05'),
    stop: day('11:05'),
    steps: [{ name: 's', cpu: 250, memory: 256, start: day('10:05'), stop: day('11:05'), status: 'STOPPED' }],
  },
  {
    organizationId: w.a.org.id,
    groupId: w.a.group.id,
    userId: w.a.user.id,
    start: day('23:45'),
    stop: '2026-11-02T00:30:00Z',
    steps: [{ name: 's', cpu: 500, memory: 512, start: day('23:45'), stop: '2026-11-02T00:30:00Z' }],
  },
  {
    organizationId: w.b.org.id,
    groupId: w.b.group.id,
    userId: w.b.user.id,
    start: day('10:00'),
    stop: day('10:50'),
    steps: [{ name: 's', cpu: 500, memory: 512, start: day('10:00'), stop: day('10:50') }],
  },
];

interface RollupRow {
  organization_id: string;
  group_id: string;
  hour: string;
  success: number;
  failed: number;
  stopped: number;
  steps: number;
  cpu_ns: string;
  memory_ns: string;
  disk_ns: string;
}

/** The rollup's rows, in key order, with the sums as exact text. */
async function rollup(organizationId?: string) {
  const rows = await db('statistics_hourly')
    .modify((q) => (organizationId ? q.where('organization_id', organizationId) : q))
    .orderBy(['organization_id', 'group_id', 'hour'])
    .select(
      'organization_id',
      'group_id',
      db.raw(`to_char(hour AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI"Z"') AS hour`),
      'success',
      'failed',
      'stopped',
      'steps',
      db.raw('cpu_ns::text AS cpu_ns'),
      db.raw('memory_ns::text AS memory_ns'),
      db.raw('disk_ns::text AS disk_ns'),
    );
  return (rows as RollupRow[]).map((r) => ({
    ...r,
    success: Number(r.success),
    failed: Number(r.failed),
    stopped: Number(r.stopped),
    steps: Number(r.steps),
  }));
}

/** The same rows aggregated straight from the records (rows of all zeros left out). */
async function directAggregate(organizationId?: string) {
  const only = organizationId ? 'AND organization_id = :org' : '';
  const { rows } = await db.raw(
    `SELECT organization_id, group_id, to_char(hour, 'YYYY-MM-DD"T"HH24:MI"Z"') AS hour,
            sum(success)::int AS success, sum(failed)::int AS failed, sum(stopped)::int AS stopped,
            sum(steps)::int AS steps, sum(cpu_ns)::text AS cpu_ns, sum(memory_ns)::text AS memory_ns,
            sum(disk_ns)::text AS disk_ns
     FROM (
       SELECT organization_id, group_id, date_trunc('hour', stopped_at AT TIME ZONE 'UTC') AS hour,
              (status = 'COMPLETED')::int AS success, (status = 'ERROR')::int AS failed,
              (status = 'STOPPED')::int AS stopped, 0 AS steps,
              0::numeric AS cpu_ns, 0::numeric AS memory_ns, 0::numeric AS disk_ns
       FROM run_records WHERE group_id IS NOT NULL ${only}
       UNION ALL
       SELECT organization_id, group_id, date_trunc('hour', stopped_at AT TIME ZONE 'UTC'), 0, 0, 0, 1,
              cpu::numeric * duration_ns, memory::numeric * duration_ns, disk::numeric * duration_ns
       FROM step_records WHERE group_id IS NOT NULL ${only}
     ) AS records
     GROUP BY organization_id, group_id, hour
     ORDER BY organization_id, group_id, hour`,
    organizationId ? { org: organizationId } : {},
  );
  return rows as RollupRow[];
}

const nonZero = (rows: RollupRow[]) =>
  rows.filter(
    (r) => r.success !== 0 || r.failed !== 0 || r.stopped !== 0 || r.steps !== 0 || BigInt(r.cpu_ns) !== 0n,
  );

beforeAll(async () => {
  db = await createTestDatabase();
  w = await createWorld(db);
  others = await createGroup(db, w.a.org, { name: 'Others', members: [w.a.orgAdmin] });
  for (const run of seeds()) await seedRunRecord(db, run);
}, 60_000);
afterAll(async () => {
  if (db) await destroyTestDatabase(db);
});

describe('statistics_hourly', () => {
  it('holds per group and hour the outcomes and allocation × time of the seeded runs', async () => {
    const row = (
      groupId: string,
      hour: string,
      counts: { success?: number; failed?: number; stopped?: number; steps: number },
      ns: { cpu: bigint; memory: bigint; disk: bigint },
    ) => ({
      organization_id: w.a.org.id,
      group_id: groupId,
      hour,
      success: counts.success ?? 0,
      failed: counts.failed ?? 0,
      stopped: counts.stopped ?? 0,
      steps: counts.steps,
      cpu_ns: ns.cpu.toString(),
      memory_ns: ns.memory.toString(),
      disk_ns: ns.disk.toString(),
    });
    const expected = [
      // r1: 500 m × 30 min + 1000 m × 10 min, both ended in the 10:00 hour.
      row(
        w.a.group.id,
        '2026-11-01T10:00Z',
        { success: 1, steps: 2 },
        {
          cpu: (500n * 30n + 1000n * 10n) * MIN_NS,
          memory: (512n * 30n + 1024n * 10n) * MIN_NS,
          disk: (100n * 30n + 200n * 10n) * MIN_NS,
        },
      ),
      row(
        w.a.group.id,
        '2026-11-01T13:00Z',
        { failed: 1, steps: 1 },
        { cpu: 2000n * 80n * MIN_NS, memory: 4096n * 80n * MIN_NS, disk: 100n * 80n * MIN_NS },
      ),
      row(
        w.a.group.id,
        '2026-11-02T00:00Z',
        { success: 1, steps: 1 },
        { cpu: 500n * 45n * MIN_NS, memory: 512n * 45n * MIN_NS, disk: 100n * 45n * MIN_NS },
      ),
      row(
        others.id,
        '2026-11-01T11:00Z',
        { stopped: 1, steps: 1 },
        { cpu: 250n * 60n * MIN_NS, memory: 256n * 60n * MIN_NS, disk: 100n * 60n * MIN_NS },
      ),
    ].sort((a, b) => (a.group_id + a.hour < b.group_id + b.hour ? -1 : 1));
    expect(await rollup(w.a.org.id)).toEqual(expected);
    expect(await directAggregate(w.a.org.id)).toEqual(expected);
    expect(await rollup(w.b.org.id)).toHaveLength(1);
  });

  it('agrees with the direct aggregate of every record, and the migration’s backfill and a rebuild write the same rows', async () => {
    const recorded = await rollup();
    expect(nonZero(recorded)).toEqual(await directAggregate());

    await hourlyMigration.down(db);
    await hourlyMigration.up(db); // the backfill from the records
    expect(nonZero(await rollup())).toEqual(nonZero(recorded));

    await rebuildStatisticsRollup(db, w.b.org.id);
    await rebuildStatisticsRollup(db);
    expect(nonZero(await rollup())).toEqual(nonZero(recorded));
  });
});

describe('recording a run again', () => {
  it('does not count a replayed run twice, also when two replicas record it at once', async () => {
    const run: SeedRun & { name: string } = {
      name: '6d0f6a3e-2f43-4c3a-9d55-0a3c1c0c0001',
      uid: 'replayed-run',
      organizationId: w.a.org.id,
      groupId: others.id,
      userId: w.a.orgAdmin.id,
      start: '2026-11-05T08:00:00Z',
      stop: '2026-11-05T08:30:00Z',
      steps: [
        {
          name: 'a',
          cpu: 1000,
          memory: 1000,
          disk: 10,
          start: '2026-11-05T08:00:00Z',
          stop: '2026-11-05T08:10:00Z',
        },
        {
          name: 'b',
          cpu: 1000,
          memory: 1000,
          disk: 10,
          start: '2026-11-05T08:10:00Z',
          stop: '2026-11-05T08:30:00Z',
        },
      ],
    };
    const replica = openReplicaDatabase(db) ?? db; // PGlite: one process owns it; its writes queue
    try {
      await Promise.all([saveRunRecords(db, runRecordsOf(run)), saveRunRecords(replica, runRecordsOf(run))]);
      await saveRunRecords(db, runRecordsOf(run)); // a restart that sees the ended Run again
    } finally {
      if (replica !== db) await replica.destroy();
    }
    const hour = (await rollup(w.a.org.id)).filter((r) => r.hour === '2026-11-05T08:00Z');
    expect(hour).toEqual([
      expect.objectContaining({
        group_id: others.id,
        success: 1,
        steps: 2,
        cpu_ns: (1000n * 30n * MIN_NS).toString(),
      }),
    ]);
    expect(nonZero(await rollup())).toEqual(await directAggregate());
  });

  it('moves the outcome of a retried run to its later end and adds only the new step execution', async () => {
    const first: SeedRun & { name: string } = {
      name: '6d0f6a3e-2f43-4c3a-9d55-0a3c1c0c0002',
      uid: 'retried-run',
      organizationId: w.a.org.id,
      groupId: others.id,
      userId: w.a.orgAdmin.id,
      status: 'ERROR',
      start: '2026-11-06T08:00:00Z',
      stop: '2026-11-06T08:30:00Z',
      steps: [
        { name: 'a', cpu: 100, memory: 100, start: '2026-11-06T08:00:00Z', stop: '2026-11-06T08:10:00Z' },
        {
          name: 'b',
          cpu: 200,
          memory: 200,
          start: '2026-11-06T08:10:00Z',
          stop: '2026-11-06T08:30:00Z',
          status: 'ERROR',
        },
      ],
    };
    // The retry runs b again an hour later; the Run keeps the status of its latest attempt of b.
    const retried: SeedRun & { name: string } = {
      ...first,
      status: 'COMPLETED',
      stop: '2026-11-06T09:40:00Z',
      steps: [
        first.steps[0]!,
        { name: 'b', cpu: 200, memory: 200, start: '2026-11-06T09:10:00Z', stop: '2026-11-06T09:40:00Z' },
      ],
    };
    await saveRunRecords(db, runRecordsOf(first));
    await saveRunRecords(db, runRecordsOf(retried));
    await saveRunRecords(db, runRecordsOf(retried)); // replayed
    await saveRunRecords(db, runRecordsOf(first)); // the older end seen late: changes nothing

    const rows = (await rollup(w.a.org.id)).filter((r) => r.hour.startsWith('2026-11-06'));
    expect(rows.map((r) => [r.hour, r.success, r.failed, r.steps, r.cpu_ns])).toEqual([
      // The ERROR taken off its hour; both first executions stay (they happened and were billed).
      ['2026-11-06T08:00Z', 0, 0, 2, ((100n * 10n + 200n * 20n) * MIN_NS).toString()],
      ['2026-11-06T09:00Z', 1, 0, 1, (200n * 30n * MIN_NS).toString()],
    ]);
    expect(nonZero(await rollup())).toEqual(await directAggregate());
  });
});

describe('POST /statistic/runs from the rollup', () => {
  /** The answer computed from the records alone, as statistics.ts did before the rollup. */
  async function fromRecords(groups: string[], start: string, end: string) {
    const hourly = Date.parse(end) - Date.parse(start) <= 3 * 24 * 3_600_000;
    const bucketNs = (hourly ? 3_600_000 : 86_400_000) * 1e6;
    const unit = hourly ? 'hour' : 'day';
    const range = (q: Knex.QueryBuilder) =>
      q
        .where('organization_id', w.a.org.id)
        .whereIn('group_id', groups)
        .where('stopped_at', '>=', start)
        .where('stopped_at', '<', end);
    const outcomes: { group_id: string; success: number; failed: number; stopped: number }[] = await range(
      db('run_records'),
    )
      .groupBy('group_id')
      .select(
        'group_id',
        db.raw(`count(*) FILTER (WHERE status = 'COMPLETED')::int AS success`),
        db.raw(`count(*) FILTER (WHERE status = 'ERROR')::int AS failed`),
        db.raw(`count(*) FILTER (WHERE status = 'STOPPED')::int AS stopped`),
      );
    const points: { group_id: string; x: string; cpu: number; memory: number; disk: number }[] = await range(
      db('step_records'),
    )
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
    return groups.map((id) => {
      const o = outcomes.find((r) => r.group_id === id);
      const line = (k: 'cpu' | 'memory' | 'disk') =>
        points
          .filter((p) => p.group_id === id)
          .map((p) => ({ x: p.x, y: Math.round(Number(p[k]) * 1000) / 1000 }));
      return {
        success: Number(o?.success ?? 0),
        failed: Number(o?.failed ?? 0),
        stopped: Number(o?.stopped ?? 0),
        cpu: line('cpu'),
        memory: line('memory'),
        disk: line('disk'),
      };
    });
  }

  const service = () => createStatisticsService({ db, resources: null });
  const scope = () => ({
    userId: w.a.orgAdmin.id,
    organizationId: w.a.org.id,
    role: 'organization_admin' as const,
  });

  it.each([
    ['a whole day', day('00:00'), '2026-11-02T00:00:00Z'],
    ['hours cut at both ends', day('10:15'), day('13:45')],
    ['inside one hour', day('10:10'), day('10:50')],
    ['across the hour of one end', day('10:35'), day('13:25')],
    ['two hours, no whole one', day('10:35'), day('11:25')],
    ['a month of daily points, cut at both ends', '2026-10-15T07:20:00Z', '2026-11-14T16:45:00Z'],
    ['days cut mid-hour', '2026-10-31T22:30:00Z', '2026-11-06T09:20:00Z'],
  ])('over %s answers what the records alone give', async (_what, start, end) => {
    const groups = [w.a.group.id, others.id];
    const answer = await service().runs(scope(), { groups, start: new Date(start), end: new Date(end) });
    expect(
      answer.map(({ success, failed, stopped, cpu, memory, disk }) => ({
        success,
        failed,
        stopped,
        cpu,
        memory,
        disk,
      })),
    ).toEqual(await fromRecords(groups, start, end));
  });

  it.each([
    // 10:15–13:45: r1 and its steps (ended 10:30, 10:40) from the records before 11:00, r2 (13:20) after 13:00.
    [
      day('10:15'),
      day('13:45'),
      { success: 1, failed: 1 },
      [
        ['2026-11-01T10:00:00Z', 416.667],
        ['2026-11-01T13:00:00Z', 2666.667],
      ],
    ],
    // 10:35–13:25: s1 (ended 10:30) is left out; s2 and r1 are in.
    [
      day('10:35'),
      day('13:25'),
      { success: 1, failed: 1 },
      [
        ['2026-11-01T10:00:00Z', 166.667],
        ['2026-11-01T13:00:00Z', 2666.667],
      ],
    ],
    [day('10:45'), day('13:15'), { success: 0, failed: 0 }, []],
  ] as const)('Alpha team from %s to %s: %j, cpu %j', async (start, end, outcome, cpu) => {
    const [alpha] = await service().runs(scope(), {
      groups: [w.a.group.id],
      start: new Date(start),
      end: new Date(end),
    });
    expect(alpha).toMatchObject({ ...outcome, stopped: 0 });
    expect(alpha!.cpu.map((p) => [p.x, p.y])).toEqual(cpu);
  });
});
