import type { Knex } from 'knex';

/** kube-lite's objects (one row each, the body as JSON) and its resourceVersion counter. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('kube_objects', (t) => {
    t.text('key').primary();
    t.text('resource').notNullable().index();
    t.text('namespace').notNullable();
    t.text('name').notNullable();
    t.bigInteger('rv').notNullable();
    t.jsonb('body').notNullable();
  });
  await knex.schema.createTable('kube_state', (t) => {
    t.text('key').primary();
    t.text('value').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('kube_state');
  await knex.schema.dropTable('kube_objects');
}
