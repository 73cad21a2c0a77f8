import type { Knex } from 'knex';

// Agent tokens of cluster managers (spec 3 §2.6, issue 16). The token itself is shown once, when
// POST /cluster creates it; only its SHA-256 is kept, so a database leak reveals none. The
// ClusterManager custom resource is the store of the cluster manager; this row only says which
// one a token opens. Revoking (deleting the cluster manager) keeps the row for the audit trail.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('cluster_tokens', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('cluster_manager').notNullable().index(); // the ClusterManager's metadata.name
    t.text('token_hash').notNullable().unique();
    t.uuid('created_by').references('users.id').onDelete('SET NULL');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_used_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('cluster_tokens');
}
