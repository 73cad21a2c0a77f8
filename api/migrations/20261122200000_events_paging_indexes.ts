import type { Knex } from 'knex';

// GET /illumina/events pages newest first within one organization (organization admins)
// or within one person's actions in it (everyone else): indexes in that order let a page
// read 30 index entries instead of sorting the organization's whole log. The first one
// also serves every lookup the single-column organization index served.
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX events_organization_id_id ON events (organization_id, id DESC)');
  await knex.raw(
    'CREATE INDEX events_organization_id_user_id_id ON events (organization_id, user_id, id DESC)',
  );
  await knex.raw('DROP INDEX IF EXISTS events_organization_id_index');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX IF NOT EXISTS events_organization_id_index ON events (organization_id)');
  await knex.raw('DROP INDEX IF EXISTS events_organization_id_user_id_id');
  await knex.raw('DROP INDEX IF EXISTS events_organization_id_id');
}
