import type { Knex } from 'knex';
import { transaction } from './transaction.js';

/**
 * The hourly statistics rollup (`statistics_hourly`, migration 20261123221500): per organization,
 * group and UTC hour, run outcomes counted and allocation × execution time summed, for
 * POST /statistic/runs. saveRunRecords adds to it in the transaction that writes the records,
 * for the rows it really wrote only.
 */

const HOUR_MS = 3_600_000;
const OUTCOME = { COMPLETED: 'success', ERROR: 'failed', STOPPED: 'stopped' } as const;

interface Increment {
  organization_id: string;
  group_id: string;
  hour: string;
  success: number;
  failed: number;
  stopped: number;
  steps: number;
  cpu_ns: bigint;
  memory_ns: bigint;
  disk_ns: bigint;
}

/** The start of the UTC hour a time falls in, as ISO 8601. */
export const hourOf = (time: string | Date): string =>
  new Date(Math.floor(new Date(time).getTime() / HOUR_MS) * HOUR_MS).toISOString();

/** What a transaction adds to the rollup, summed per key in memory and written in one statement. */
export function rollupChanges() {
  const byKey = new Map<string, Increment>();
  const at = (organizationId: string, groupId: string, time: string | Date): Increment => {
    const hour = hourOf(time);
    const key = `${organizationId} ${groupId} ${hour}`;
    let row = byKey.get(key);
    if (!row) {
      row = {
        organization_id: organizationId,
        group_id: groupId,
        hour,
        success: 0,
        failed: 0,
        stopped: 0,
        steps: 0,
        cpu_ns: 0n,
        memory_ns: 0n,
        disk_ns: 0n,
      };
      byKey.set(key, row);
    }
    return row;
  };
  return {
    /** A run outcome recorded (sign 1) or replaced by a later end of the run (sign -1). */
    run(
      run: { organization_id: string; group_id: string | null; status: string; stopped_at: string | Date },
      sign: 1 | -1 = 1,
    ) {
      const column = OUTCOME[run.status as keyof typeof OUTCOME];
      if (!run.group_id || !column) return;
      at(run.organization_id, run.group_id, run.stopped_at)[column] += sign;
    },
    /** A step execution recorded. */
    step(step: {
      organization_id: string;
      group_id: string | null;
      stopped_at: string;
      cpu: number;
      memory: number;
      disk: number;
      duration_ns: string;
    }) {
      if (!step.group_id) return;
      const row = at(step.organization_id, step.group_id, step.stopped_at);
      const ns = BigInt(step.duration_ns);
      row.steps += 1;
      row.cpu_ns += BigInt(step.cpu) * ns;
      row.memory_ns += BigInt(step.memory) * ns;
      row.disk_ns += BigInt(step.disk) * ns;
    },
    /**
     * Adds the changes to the rollup in one upsert. Rows go in key order, so that transactions
     * touching the same group hours lock them in the same order and cannot deadlock.
     */
    async save(trx: Knex.Transaction): Promise<void> {
      if (byKey.size === 0) return;
      const rows = [...byKey.entries()]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([, r]) => ({
          ...r,
          cpu_ns: r.cpu_ns.toString(),
          memory_ns: r.memory_ns.toString(),
          disk_ns: r.disk_ns.toString(),
        }));
      const add = (column: string) => trx.raw('?? + excluded.??', [`statistics_hourly.${column}`, column]);
      await trx('statistics_hourly')
        .insert(rows)
        .onConflict(['organization_id', 'group_id', 'hour'])
        .merge({
          success: add('success'),
          failed: add('failed'),
          stopped: add('stopped'),
          steps: add('steps'),
          cpu_ns: add('cpu_ns'),
          memory_ns: add('memory_ns'),
          disk_ns: add('disk_ns'),
        });
      byKey.clear();
    },
  };
}

/**
 * Rebuilds the rollup of one organization (or of all) from the records, as the migration's
 * backfill does: for records written straight into the tables (bench/statistics seeds them with
 * INSERT … SELECT), and the direct aggregate tests compare the rollup with.
 */
export async function rebuildStatisticsRollup(db: Knex, organizationId?: string): Promise<void> {
  const only = organizationId ? 'AND organization_id = :org' : '';
  await transaction(db, async (trx) => {
    await trx('statistics_hourly')
      .modify((q) => (organizationId ? q.where('organization_id', organizationId) : q))
      .delete();
    await trx.raw(
      `INSERT INTO statistics_hourly
         (organization_id, group_id, hour, success, failed, stopped, steps, cpu_ns, memory_ns, disk_ns)
       SELECT organization_id, group_id, hour, sum(success), sum(failed), sum(stopped), sum(steps),
              sum(cpu_ns), sum(memory_ns), sum(disk_ns)
       FROM (
         SELECT organization_id, group_id,
                date_trunc('hour', stopped_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS hour,
                (status = 'COMPLETED')::int AS success, (status = 'ERROR')::int AS failed,
                (status = 'STOPPED')::int AS stopped, 0 AS steps,
                0::numeric AS cpu_ns, 0::numeric AS memory_ns, 0::numeric AS disk_ns
         FROM run_records WHERE group_id IS NOT NULL ${only}
         UNION ALL
         SELECT organization_id, group_id,
                date_trunc('hour', stopped_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC',
                0, 0, 0, 1,
                cpu::numeric * duration_ns, memory::numeric * duration_ns, disk::numeric * duration_ns
         FROM step_records WHERE group_id IS NOT NULL ${only}
       ) AS records
       GROUP BY organization_id, group_id, hour`,
      organizationId ? { org: organizationId } : {},
    );
  });
}
