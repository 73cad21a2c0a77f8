import type { Knex } from 'knex';

// Access tokens are stateless JWTs: revoking refresh tokens on a password change or reset left the
// access tokens already issued valid until they expired (up to 15 minutes). A token issued before
// this instant (whole seconds, the JWT's `iat` precision) is refused from the next request on.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => {
    t.timestamp('tokens_valid_after', { useTz: true }).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => {
    t.dropColumn('tokens_valid_after');
  });
}
