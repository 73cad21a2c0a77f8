import type { Knex } from 'knex';

// Issue 17: durable run outcomes, per-step allocations (statistics and billing) and per-minute
// cluster usage. Run objects come and go (deleted sessions take their runs along); these rows
// stay. Every table has a natural unique key so that several API replicas recording the same
// event write one row (INSERT … ON CONFLICT DO NOTHING).
export async function up(knex: Knex): Promise<void> {
  // The latest outcome of each run (a retried run ends again: the newer end replaces the older).
  await knex.schema.createTable('run_records', (t) => {
    t.text('run_uid').primary(); // metadata.uid: a deleted and re-created name is another run
    t.text('run_name').notNullable(); // metadata.name, the API's run uuid
    t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.uuid('group_id'); // no foreign key: the history outlives a deleted group
    t.uuid('user_id');
    t.text('session').notNullable();
    t.text('session_name').notNullable().defaultTo('');
    t.text('cluster').notNullable().defaultTo('');
    t.text('status').notNullable(); // COMPLETED | ERROR | STOPPED
    t.timestamp('started_at', { useTz: true });
    t.timestamp('stopped_at', { useTz: true }).notNullable();
    t.timestamp('recorded_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(
    'CREATE INDEX run_records_org_group_stopped ON run_records (organization_id, group_id, stopped_at)',
  );
  await knex.raw('CREATE INDEX run_records_org_run_name ON run_records (organization_id, run_name)');

  // One row per execution of a step (a workflow node): what it was allocated, for how long, and
  // what it costs. The attempt is the step's start time: a retry or restart starts it again.
  await knex.schema.createTable('step_records', (t) => {
    t.bigIncrements('id');
    t.text('run_uid').notNullable();
    t.text('run_name').notNullable();
    t.text('node_id').notNullable();
    t.text('attempt').notNullable();
    t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.uuid('group_id');
    t.uuid('user_id');
    t.text('session').notNullable();
    t.text('session_name').notNullable().defaultTo('');
    t.text('sandbox_id').notNullable().defaultTo('');
    t.text('sandbox_name').notNullable();
    t.text('cluster').notNullable().defaultTo('');
    t.text('status').notNullable();
    t.integer('cpu').notNullable(); // millicores
    t.integer('memory').notNullable(); // MB
    t.integer('disk').notNullable(); // MB
    t.timestamp('started_at', { useTz: true }).notNullable();
    t.timestamp('stopped_at', { useTz: true }).notNullable();
    t.bigInteger('duration_ns').notNullable();
    // The priced machine (spec 2 §9) and the amount in nano-dollars, so sums stay exact.
    t.integer('machine_cpu').notNullable();
    t.integer('machine_memory').notNullable();
    t.bigInteger('amount_nano').notNullable();
    t.boolean('paid').notNullable().defaultTo(false);
    t.unique(['run_uid', 'node_id', 'attempt']);
  });
  // Statistics read a group's steps in a date range; billing pages an organization newest first.
  await knex.raw(
    `CREATE INDEX step_records_org_group_stopped ON step_records
       (organization_id, group_id, stopped_at) INCLUDE (cpu, memory, disk, duration_ns)`,
  );
  await knex.raw(
    'CREATE INDEX step_records_org_stopped_id ON step_records (organization_id, stopped_at DESC, id DESC)',
  );
  await knex.raw('CREATE INDEX step_records_org_run_name ON step_records (organization_id, run_name)');

  // What each cluster manager had allocated, once a minute, by whichever replica sampled first.
  await knex.schema.createTable('cluster_usage', (t) => {
    t.text('cluster').notNullable(); // the ClusterManager's metadata.name
    t.timestamp('minute', { useTz: true }).notNullable();
    t.text('name').notNullable().defaultTo('');
    t.boolean('is_public').notNullable().defaultTo(false);
    t.specificType('organizations', 'uuid[]').notNullable().defaultTo('{}');
    t.integer('capacity_cpu').notNullable();
    t.integer('capacity_memory').notNullable();
    t.integer('capacity_disk').notNullable();
    t.integer('used_cpu').notNullable();
    t.integer('used_memory').notNullable();
    t.integer('used_disk').notNullable();
    t.primary(['cluster', 'minute']);
  });
  await knex.raw('CREATE INDEX cluster_usage_minute ON cluster_usage (minute)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('cluster_usage');
  await knex.schema.dropTable('step_records');
  await knex.schema.dropTable('run_records');
}
