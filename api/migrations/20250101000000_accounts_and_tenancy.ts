import type { Knex } from 'knex';

// Identity and tenancy. Quantities are stored in the spec's units: cpu in
// millicores, memory and disk in MB.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('users', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('email').notNullable();
    t.text('first_name').notNullable().defaultTo('');
    t.text('last_name').notNullable().defaultTo('');
    t.text('password_hash'); // null for single-sign-on-only accounts
    t.boolean('is_super_admin').notNullable().defaultTo(false);
    t.boolean('verified').notNullable().defaultTo(false);
    t.boolean('mail_notification').notNullable().defaultTo(true);
    t.uuid('current_organization_id');
    t.binary('avatar');
    t.text('avatar_type');
    t.text('oidc_subject').unique();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('CREATE UNIQUE INDEX users_email_lower ON users (lower(email))');

  await knex.schema.createTable('organizations', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('name').notNullable().unique();
    t.text('slug').notNullable().unique();
    t.integer('quota_cpu').notNullable().defaultTo(0);
    t.integer('quota_memory').notNullable().defaultTo(0);
    t.integer('quota_disk').notNullable().defaultTo(0);
    t.text('algorithm').notNullable().defaultTo('round_robin');
    t.jsonb('registry')
      .notNullable()
      .defaultTo(JSON.stringify({ use_custom: false }));
    t.jsonb('mount_points').notNullable().defaultTo('[]');
    t.boolean('safe_mount').notNullable().defaultTo(true);
    t.jsonb('automatic_resources')
      .notNullable()
      .defaultTo(JSON.stringify({ cpu: 0, memory: 0, disk: 0 }));
    t.boolean('use_automatic_resources').notNullable().defaultTo(false);
    t.boolean('enable_provisioner').notNullable().defaultTo(false);
    t.boolean('lock_provisioner').notNullable().defaultTo(false);
    t.boolean('use_free').notNullable().defaultTo(false);
    t.jsonb('disabled_clusters').notNullable().defaultTo('[]');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('organization_members', (t) => {
    t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('role').notNullable().defaultTo('user'); // organization_admin | user
    t.integer('uid').notNullable();
    t.primary(['organization_id', 'user_id']);
    t.unique(['organization_id', 'uid']);
  });

  await knex.schema.createTable('groups', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('slug').notNullable();
    t.integer('quota_cpu').notNullable().defaultTo(0);
    t.integer('quota_memory').notNullable().defaultTo(0);
    t.integer('quota_disk').notNullable().defaultTo(0);
    t.integer('gid').notNullable();
    t.boolean('use_free').notNullable().defaultTo(false);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['organization_id', 'name']);
    t.unique(['organization_id', 'slug']);
  });

  await knex.schema.createTable('group_members', (t) => {
    t.uuid('group_id').notNullable().references('groups.id').onDelete('CASCADE');
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.boolean('is_admin').notNullable().defaultTo(false);
    // A fixed quota (millicores / MB) or, with use_percentage, percentages of the group quota.
    t.float('quota_cpu').notNullable().defaultTo(0);
    t.float('quota_memory').notNullable().defaultTo(0);
    t.float('quota_disk').notNullable().defaultTo(0);
    t.boolean('use_free').notNullable().defaultTo(true);
    t.boolean('use_percentage').notNullable().defaultTo(false);
    t.primary(['group_id', 'user_id']);
  });

  await knex.schema.createTable('invitations', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('token_hash').notNullable().unique();
    t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.uuid('group_id').references('groups.id').onDelete('SET NULL');
    t.text('email').notNullable();
    t.uuid('invited_by').references('users.id').onDelete('SET NULL');
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('accepted_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  // One-use tokens mailed to a person: e-mail verification and password reset.
  await knex.schema.createTable('user_tokens', (t) => {
    t.text('token_hash').primary();
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('purpose').notNullable(); // verify | reset
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('used_at', { useTz: true });
  });

  await knex.schema.createTable('refresh_tokens', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('family_id').notNullable().index();
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.uuid('organization_id');
    t.text('token_hash').notNullable().unique();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('used_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('outbox', (t) => {
    t.bigIncrements('id');
    t.text('to').notNullable();
    t.text('subject').notNullable();
    t.text('text').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('platform_settings', (t) => {
    t.text('key').primary();
    t.jsonb('value').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'platform_settings',
    'outbox',
    'refresh_tokens',
    'user_tokens',
    'invitations',
    'group_members',
    'groups',
    'organization_members',
    'organizations',
    'users',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
}
