import type { Knex } from 'knex';

// Spec 3 §2.3 Mount Points: a base path every mount point of the organization must live under
// (PUT /organizations/{id}/mount refuses a row outside it, and the runtime again when a step
// starts). The default '/mnt' is what safe mount (on by default) already enforced; an
// organization that had turned safe mount off may have rows anywhere, so its base is '/' and
// nothing it saved before is refused now.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('organizations', (t) => {
    t.text('mount_base').notNullable().defaultTo('/mnt');
  });
  await knex('organizations').where({ safe_mount: false }).update({ mount_base: '/' });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('organizations', (t) => {
    t.dropColumn('mount_base');
  });
}
