// POST /api/v0/statistic/runs over 1,000,000 recorded step executions (50,000 runs of 20 steps)
// across the 50 groups of one organization in one month (issue 17; target p50 ≤ 200 ms).
// `npm run bench:statistics [requests=30]` (= npx tsx bench/statistics/run.ts).
// A real PostgreSQL: the one named by SANDFLOW_TEST_DATABASE_URL, else a temp cluster of Debian's
// /usr/lib/postgresql/*/bin started here (as .ci/run does) and removed at the end; PGlite in memory
// only when neither exists. The records are seeded with INSERT … SELECT FROM generate_series into
// the tables of the API's migrations, then the request is timed through the real HTTP API as an
// organization admin (all 50 groups, the whole month): 3 warm-up requests, then `requests` one
// after another; then the same for a month cut mid-hour at both ends (the edges read from the
// records). The hourly rollup the service reads (statistics_hourly) is filled with its migration's
// backfill statement over the seeded records (the recording path adds to it as runs end). Finally
// EXPLAIN (ANALYZE, BUFFERS) of the allocation aggregate the service ran.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Knex } from 'knex';
import pino from 'pino';
import { closeServices, createApp, createMailer, defaultApiConfig, type ApiDeps } from '@sandflow/api';
import { createTestDatabase, createWorld, destroyTestDatabase, servicesFor } from '@sandflow/api/testing';

const WARM_UP = 3;
export const GROUPS = 50;
export const RUNS = 50_000;
export const STEPS_PER_RUN = 20; // RUNS × STEPS_PER_RUN = 1,000,000 step executions
export const MONTH_START = '2026-10-01T00:00:00.000Z';
export const MONTH_END = '2026-11-01T00:00:00.000Z';
// The same month cut mid-hour at both ends: the partial hours come from the records.
const CUT_START = '2026-10-01T00:20:00.000Z';
const CUT_END = '2026-10-31T23:40:00.000Z';
const sh = promisify(execFile);

const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/** A throwaway PostgreSQL cluster in a temp folder (run as the postgres user when we are root). */
export async function startPostgres(): Promise<{
  url: string;
  version: string;
  stop(): Promise<void>;
} | null> {
  const root = '/usr/lib/postgresql';
  let versions: string[];
  try {
    versions = readdirSync(root).sort((a, b) => Number(a) - Number(b));
  } catch {
    return null;
  }
  const version = versions.at(-1);
  if (!version) return null;
  const bin = path.join(root, version, 'bin');
  const data = mkdtempSync(path.join(os.tmpdir(), 'sandflow-bench-pg-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) execFileSync('chown', ['postgres', data]);
  const asPostgres = (command: string[]) =>
    asRoot
      ? sh('su', ['postgres', '-s', '/bin/sh', '-c', command.map((a) => `'${a}'`).join(' ')])
      : sh(command[0]!, command.slice(1));
  const port = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
  const stop = async () => {
    await asPostgres([`${bin}/pg_ctl`, '-D', data, '-m', 'immediate', 'stop']).catch(() => undefined);
    rmSync(data, { recursive: true, force: true });
  };
  try {
    await asPostgres([`${bin}/initdb`, '-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync']);
    await asPostgres([
      `${bin}/pg_ctl`,
      '-D',
      data,
      '-o',
      `-p ${port} -k ${data} -c listen_addresses=127.0.0.1 -c fsync=off`,
      '-l',
      `${data}/log`,
      '-w',
      'start',
    ]);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, version: `PostgreSQL ${version}`, stop };
}

/**
 * 49 more groups next to the organization's one, then the runs and their steps over the month, all
 * in SQL (`runs` of STEPS_PER_RUN steps; bench/org-dashboard seeds the same way, smaller for a try).
 */
export async function seed(db: Knex, organizationId: string, userId: string, runs = RUNS): Promise<string[]> {
  await db.raw(
    `INSERT INTO groups (organization_id, name, slug, gid, quota_cpu, quota_memory, quota_disk)
     SELECT ?, 'Bench group ' || lpad(g::text, 2, '0'), 'bench-group-' || g, 1000 + g, 64000, 262144, 1048576
     FROM generate_series(1, ?) AS g`,
    [organizationId, GROUPS - 1],
  );
  const groups = (await db('groups')
    .where({ organization_id: organizationId })
    .orderBy('gid')
    .pluck('id')) as string[];
  if (groups.length !== GROUPS) throw new Error(`expected ${GROUPS} groups, found ${groups.length}`);
  const monthMs = Date.parse(MONTH_END) - Date.parse(MONTH_START);
  // Run i ends at an even spread over the month, in group i mod 50; 3 of 5 complete, 1 errs, 1 stops.
  await db.raw(
    `INSERT INTO run_records (run_uid, run_name, organization_id, group_id, user_id, session, session_name,
                              cluster, status, started_at, stopped_at)
     SELECT 'bench-run-' || i, md5('run' || i)::uuid::text, :org, (:groups::uuid[])[1 + i % :n], :user,
            'session-' || (i % 500), 'nightly', 'local',
            (ARRAY['COMPLETED', 'COMPLETED', 'COMPLETED', 'ERROR', 'STOPPED'])[1 + i % 5],
            stop - interval '20 minutes', stop
     FROM generate_series(0, :runs - 1) AS i,
          LATERAL (SELECT :start::timestamptz + (i * (:monthMs::float8 / :runs)) * interval '1 millisecond' AS stop) t`,
    { org: organizationId, groups, n: GROUPS, user: userId, runs, start: MONTH_START, monthMs },
  );
  // Step j of run i ran for 30–89 s and ended (20 - j) minutes before its run, so the first steps of
  // the month's first runs end before the month (outside the range, as real data at its edge would).
  await db.raw(
    `INSERT INTO step_records (run_uid, run_name, node_id, attempt, organization_id, group_id, user_id,
                               session, session_name, sandbox_id, sandbox_name, cluster, status,
                               cpu, memory, disk, started_at, stopped_at, duration_ns,
                               machine_cpu, machine_memory, amount_nano)
     SELECT 'bench-run-' || i, md5('run' || i)::uuid::text, 'n' || j, '0', :org,
            (:groups::uuid[])[1 + i % :n], :user, 'session-' || (i % 500), 'nightly', 'box-' || (s % 7),
            'sandbox-' || j, 'local', CASE WHEN j = 19 AND i % 5 = 3 THEN 'ERROR' ELSE 'COMPLETED' END,
            (ARRAY[250, 500, 1000, 2000])[1 + s % 4], (ARRAY[256, 512, 1024, 4096])[1 + (s / 4) % 4], 1024,
            stop - (secs * interval '1 second'), stop, secs::bigint * 1000000000,
            2000, 4096, secs::bigint * 1000000
     FROM generate_series(0, :steps - 1) AS s,
          LATERAL (SELECT s / :per AS i, s % :per AS j, 30 + s % 60 AS secs) k,
          LATERAL (SELECT :start::timestamptz + (i * (:monthMs::float8 / :runs)) * interval '1 millisecond'
                          - ((:per - j) * interval '1 minute') AS stop) t`,
    {
      org: organizationId,
      groups,
      n: GROUPS,
      user: userId,
      steps: runs * STEPS_PER_RUN,
      per: STEPS_PER_RUN,
      runs,
      start: MONTH_START,
      monthMs,
    },
  );
  await db.raw('ANALYZE run_records, step_records, groups'); // what autovacuum does after a bulk load
  return groups;
}

/**
 * The hourly rollup of the seeded records, with the INSERT … SELECT of its migration's backfill
 * (api/migrations/20261123221500_statistics_hourly.ts): the records were written straight into
 * their tables, past saveRunRecords, which adds to the rollup as runs end.
 */
export async function rollUp(db: Knex): Promise<{ ms: number; rows: number }> {
  const started = performance.now();
  await db('statistics_hourly').delete();
  await db.raw(`
    INSERT INTO statistics_hourly
      (organization_id, group_id, hour, success, failed, stopped, steps, cpu_ns, memory_ns, disk_ns)
    SELECT organization_id, group_id, hour, sum(success), sum(failed), sum(stopped), sum(steps),
           sum(cpu_ns), sum(memory_ns), sum(disk_ns)
    FROM (
      SELECT organization_id, group_id,
             date_trunc('hour', stopped_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS hour,
             (status = 'COMPLETED')::int AS success, (status = 'ERROR')::int AS failed,
             (status = 'STOPPED')::int AS stopped, 0 AS steps,
             0::numeric AS cpu_ns, 0::numeric AS memory_ns, 0::numeric AS disk_ns
      FROM run_records WHERE group_id IS NOT NULL
      UNION ALL
      SELECT organization_id, group_id,
             date_trunc('hour', stopped_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC',
             0, 0, 0, 1,
             cpu::numeric * duration_ns, memory::numeric * duration_ns, disk::numeric * duration_ns
      FROM step_records WHERE group_id IS NOT NULL
    ) AS records
    GROUP BY organization_id, group_id, hour`);
  await db.raw('ANALYZE statistics_hourly');
  const ms = performance.now() - started;
  const counted = await db('statistics_hourly').count<{ n: string }[]>({ n: '*' });
  return { ms, rows: Number(counted[0]!.n) };
}

async function main() {
  const REQUESTS = Math.max(30, Number(process.argv[2] ?? '30'));
  const external = process.env.SANDFLOW_TEST_DATABASE_URL;
  const postgres = external ? null : await startPostgres();
  if (postgres) process.env.SANDFLOW_TEST_DATABASE_URL = postgres.url;
  let db: Knex | undefined;
  try {
    db = await createTestDatabase();
    const database = external
      ? `PostgreSQL at SANDFLOW_TEST_DATABASE_URL (${(await db.raw('SHOW server_version')).rows[0].server_version})`
      : postgres
        ? `${postgres.version}, a temp cluster (fsync off)`
        : 'PGlite in memory';
    process.stdout.write(`database: ${database}; Node ${process.version}; ${os.cpus().length} cores\n`);
    process.stdout.write(`load average before: ${loadAverage()}\n`);

    const world = await createWorld(db);
    const seedStarted = performance.now();
    const groups = await seed(db, world.a.org.id, world.a.user.id);
    const seedMs = performance.now() - seedStarted;
    const counted = await db('step_records').count<{ n: string }[]>({ n: '*' });
    process.stdout.write(
      `seeded ${Number(counted[0]!.n).toLocaleString('en')} step executions of ${RUNS.toLocaleString('en')} runs ` +
        `in ${GROUPS} groups in ${(seedMs / 1000).toFixed(1)} s (INSERT … SELECT generate_series, then ANALYZE)\n`,
    );
    const rolled = await rollUp(db);
    process.stdout.write(
      `rolled up into ${rolled.rows.toLocaleString('en')} statistics_hourly rows (group × hour) ` +
        `in ${(rolled.ms / 1000).toFixed(1)} s (the migration's backfill statement, then ANALYZE)\n`,
    );

    const config = defaultApiConfig();
    const deps: ApiDeps = {
      db,
      kube: null,
      logger: pino({ level: 'silent' }),
      mailer: createMailer({ db, from: config.mailFrom }),
      config,
    };
    const token = await servicesFor(deps).tokens.signAccessToken({
      userId: world.a.orgAdmin.id,
      organizationId: world.a.org.id,
    });
    const server = createApp(deps).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v0/statistic/runs`;

    // The statements of one request, to EXPLAIN the allocation aggregate afterwards exactly as it was sent.
    const statements: { sql: string; bindings: readonly Knex.RawBinding[] }[] = [];
    const capture = (q: { sql: string; bindings?: readonly Knex.RawBinding[] }) =>
      statements.push({ sql: q.sql, bindings: q.bindings ?? [] });

    /** What the records alone give for a range: the runs ended in it and Σ daily mean millicores. */
    async function fromRecords(start: string, end: string): Promise<{ runs: number; cpu: number }> {
      const inRange = (table: string) =>
        db!(table).where('stopped_at', '>=', start).where('stopped_at', '<', end);
      const counted = await inRange('run_records').count<{ n: string }[]>({ n: '*' });
      const summed: { cpu: number }[] = await inRange('step_records').select(
        db!.raw('coalesce(sum(cpu::numeric * duration_ns) / 86400e9, 0)::float8 AS cpu'),
      );
      return { runs: Number(counted[0]!.n), cpu: Number(summed[0]!.cpu) };
    }

    async function measure(label: string, start: string, end: string, days: number) {
      const body = JSON.stringify({ groups, start_date: start, end_date: end });
      const expected = await fromRecords(start, end);
      async function once(): Promise<number> {
        const started = performance.now();
        const response = await fetch(url, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body,
        });
        const answer = (await response.json()) as {
          result: { success: number; failed: number; stopped: number; cpu: { y: number }[] }[];
        };
        const elapsed = performance.now() - started;
        if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${JSON.stringify(answer)}`);
        const runs = answer.result.reduce((sum, g) => sum + g.success + g.failed + g.stopped, 0);
        const points = answer.result.reduce((sum, g) => sum + g.cpu.length, 0);
        const cpu = answer.result.reduce((sum, g) => sum + g.cpu.reduce((t, p) => t + p.y, 0), 0);
        // Each point is rounded to 3 decimals: the sums agree within half a thousandth per point.
        if (
          answer.result.length !== GROUPS ||
          runs !== expected.runs ||
          answer.result.some((g) => g.cpu.length !== days) ||
          Math.abs(cpu - expected.cpu) > 0.0005 * points + 1e-6
        )
          throw new Error(
            `unexpected answer: ${answer.result.length} groups, ${runs} runs (${expected.runs} recorded), ` +
              `Σ cpu ${cpu} (${expected.cpu} from the records)`,
          );
        return elapsed;
      }

      statements.length = 0;
      db!.on('query', capture);
      const warmUp = [];
      for (let i = 0; i < WARM_UP; i++) warmUp.push(await once());
      db!.off('query', capture);
      const times = [];
      for (let i = 0; i < REQUESTS; i++) times.push(await once());

      const sorted = [...times].sort((a, b) => a - b);
      const at = (p: number) =>
        sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
      const ms = (n: number) => `${n.toFixed(1)} ms`;
      process.stdout.write(
        `\nPOST /api/v0/statistic/runs, ${GROUPS} groups, ${label} ${start} – ${end} ` +
          `(${expected.runs.toLocaleString('en')} runs, ${days} daily points per group, answers checked ` +
          `against the records):\n` +
          `  warm-up ${warmUp.map(ms).join(', ')}\n` +
          `  ${REQUESTS} requests one after another: p50 ${ms(at(50))}  p95 ${ms(at(95))}  max ${ms(sorted.at(-1)!)}` +
          `  (target p50 ≤ 200 ms: ${at(50) <= 200 ? 'met' : 'NOT met'})\n` +
          `  load average now: ${loadAverage()}\n`,
      );
      return [...statements];
    }

    const whole = await measure('the whole month', MONTH_START, MONTH_END, 31);
    const cut = await measure('the month cut mid-hour', CUT_START, CUT_END, 31);

    for (const [label, sent] of [
      ['whole month', whole],
      ['month cut mid-hour', cut],
    ] as const) {
      const aggregate = sent.find(
        (s) => /from "statistics_hourly"/i.test(s.sql) && /"step_records"/i.test(s.sql),
      );
      if (!aggregate)
        throw new Error('the allocation aggregate was not seen among the statements of a request');
      // knex reports pg statements with $n placeholders; knex.raw wants ? (each $n appears once, in order).
      const plan = await db.raw(
        `EXPLAIN (ANALYZE, BUFFERS) ${aggregate.sql.replace(/\$\d+/g, '?')}`,
        aggregate.bindings,
      );
      // The 50 group ids make some lines thousands of characters long: cut there.
      const lines = (plan.rows as Record<string, string>[])
        .map((r) => Object.values(r)[0]!)
        .map((l) => (l.length > 240 ? `${l.slice(0, 240)}…` : l));
      process.stdout.write(
        `\nEXPLAIN (ANALYZE, BUFFERS) of the allocation aggregate (${label}):\n${lines.join('\n')}\n`,
      );
    }

    server.close();
    await closeServices(deps);
  } finally {
    if (db) await destroyTestDatabase(db);
    await postgres?.stop();
  }
}

// Run as the benchmark, not when bench/org-dashboard imports the seeding.
if (path.resolve(process.argv[1] ?? '') === fileURLToPath(import.meta.url)) await main();
