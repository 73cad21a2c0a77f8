import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Knex } from 'knex';

const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');
const MIGRATION_FILE = /^\d{14}_[a-z0-9_]+\.ts$/;

/** kube-lite's own migration table: the API keeps its tables in the same database. */
export const KUBE_LITE_MIGRATIONS_TABLE = 'kube_lite_migrations';

// Imported here rather than by knex so that whatever runs kube-lite (tsx, vite, or npm start's
// esbuild bundle, which includes every file a relative template import can match; the extension
// is spelled out for vite) loads them.
const config = {
  tableName: KUBE_LITE_MIGRATIONS_TABLE,
  lockTableName: `${KUBE_LITE_MIGRATIONS_TABLE}_lock`,
  migrationSource: {
    async getMigrations() {
      return fs
        .readdirSync(MIGRATIONS_DIR)
        .filter((name) => MIGRATION_FILE.test(name))
        .sort();
    },
    getMigrationName: (name: string) => name,
    getMigration: async (name: string) => import(`../../migrations/${path.basename(name, '.ts')}.ts`),
  } satisfies Knex.MigrationSource<string>,
};

export async function migrateKubeLite(db: Knex): Promise<void> {
  await db.migrate.latest(config);
}

export async function rollbackKubeLite(db: Knex): Promise<void> {
  await db.migrate.rollback(config, true);
}
