import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Knex } from 'knex';

const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../migrations');
const MIGRATION_FILE = /^\d{14}_[a-z0-9_]+\.ts$/;

/** The migration table of the API; kube-lite keeps its own tables in the same database. */
export const API_MIGRATIONS_TABLE = 'api_migrations';

interface MigrationModule {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

// The files are imported from here rather than by knex itself so that whatever runs the API
// loads them: vite in tests, tsx, or npm start's bundle (esbuild bundles every file a relative
// template import can match; the extension is spelled out for vite).
const migrationSource: Knex.MigrationSource<string> = {
  async getMigrations() {
    return fs
      .readdirSync(MIGRATIONS_DIR)
      .filter((name) => MIGRATION_FILE.test(name))
      .sort();
  },
  getMigrationName(name) {
    return name;
  },
  async getMigration(name) {
    return (await import(`../migrations/${path.basename(name, '.ts')}.ts`)) as MigrationModule;
  },
};

const migratorConfig = {
  migrationSource,
  tableName: API_MIGRATIONS_TABLE,
  lockTableName: `${API_MIGRATIONS_TABLE}_lock`,
};

/** Brings the API's tables to the newest schema. */
export async function migrateApi(db: Knex): Promise<void> {
  await db.migrate.latest(migratorConfig);
}

/** Undoes every API migration (tests of the down path). */
export async function rollbackApi(db: Knex): Promise<void> {
  await db.migrate.rollback(migratorConfig, true);
}
