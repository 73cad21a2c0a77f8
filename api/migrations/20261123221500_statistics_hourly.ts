import type { Knex } from 'knex';

// Issue 17, bench/statistics: POST /statistic/runs over a month read every step execution of
// it (a million rows, 649 ms at best). This rollup holds, per organization, group and UTC hour
// (the hour the run or step ended in), what that answer needs: run outcomes counted and
// allocation × execution time summed. saveRunRecords adds to it in the transaction that writes
// the records, only for the rows it really inserted or replaced, so it stays exactly-once as the
// records are. Records without a group (a run whose group label was not a uuid) are not rolled
// up: the statistics ask for groups. No foreign key on the group: the history outlives it.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('statistics_hourly', (t) => {
    t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.uuid('group_id').notNullable();
    t.timestamp('hour', { useTz: true }).notNullable(); // the start of the UTC hour
    t.integer('success').notNullable().defaultTo(0); // runs ended COMPLETED in the hour
    t.integer('failed').notNullable().defaultTo(0); // … ERROR
    t.integer('stopped').notNullable().defaultTo(0); // … STOPPED
    t.integer('steps').notNullable().defaultTo(0); // step executions ended in the hour
    // Σ allocation × duration_ns of those steps (millicore-ns, MB-ns): exact, as billing's sums are.
    t.decimal('cpu_ns', null).notNullable().defaultTo(0);
    t.decimal('memory_ns', null).notNullable().defaultTo(0);
    t.decimal('disk_ns', null).notNullable().defaultTo(0);
    t.primary(['organization_id', 'group_id', 'hour']);
  });

  // The records written before this migration.
  await knex.raw(`
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
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('statistics_hourly');
}
