import type { Knex } from 'knex';

// Audit log, per-user notifications and the small per-user preference tables.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('events', (t) => {
    t.bigIncrements('id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.uuid('organization_id').index(); // null = platform-wide (visible to the super admin only)
    t.uuid('user_id');
    t.text('user_name').notNullable().defaultTo('');
    t.text('kind').notNullable(); // users, groups, organizations, clusters, sandboxes, ...
    t.text('action').notNullable(); // create, update, remove, ...
    t.text('subject').notNullable().defaultTo('');
    t.jsonb('data').notNullable().defaultTo('[]');
  });

  await knex.schema.createTable('notifications', (t) => {
    t.bigIncrements('id');
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.uuid('organization_id');
    t.text('title').notNullable();
    t.text('type').notNullable().defaultTo('primary');
    t.text('text').notNullable().defaultTo('');
    t.jsonb('data'); // { action, uuid, run_uuid }
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('seen_at', { useTz: true }); // returned once by GET /notifications/new
    t.timestamp('delivered_at', { useTz: true }); // acknowledged with Ok on the websocket
    t.index(['user_id', 'id']);
  });

  await knex.schema.createTable('tags', (t) => {
    t.bigIncrements('id');
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('label').notNullable();
    t.text('color').notNullable();
    t.unique(['user_id', 'label']);
    t.unique(['user_id', 'color']);
  });

  await knex.schema.createTable('contacts', (t) => {
    t.uuid('user_id').primary().references('users.id').onDelete('CASCADE');
    t.jsonb('contacts').notNullable().defaultTo('[]');
  });

  await knex.schema.createTable('feedback', (t) => {
    t.bigIncrements('id');
    t.uuid('user_id').references('users.id').onDelete('SET NULL');
    t.text('subject').notNullable();
    t.text('content').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['feedback', 'contacts', 'tags', 'notifications', 'events']) {
    await knex.schema.dropTableIfExists(table);
  }
}
