import type { Knex } from 'knex';

// The login and password rate limits were counted in each API process's memory, so N replicas gave
// a client N times the budget. One row per limiter and client key (hashed), counted in the database
// all replicas share; rows whose window has ended are swept (`reset_at` index).
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('rate_limits', (t) => {
    t.text('key').primary();
    t.integer('hits').notNullable();
    t.timestamp('reset_at', { useTz: true }).notNullable().index();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('rate_limits');
}
