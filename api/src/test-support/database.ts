import knexFactory, { type Knex } from 'knex';
import ClientPgLite from 'knex-pglite';
import { migrateApi } from '../migrate.js';

const cleanups = new WeakMap<Knex, () => Promise<void>>();

/** Closes a test database, dropping its schema on a shared server so it does not fill up. */
export async function destroyTestDatabase(db: Knex): Promise<void> {
  await cleanups.get(db)?.();
  await db.destroy();
}

/**
 * PGlite in memory, or the PostgreSQL named by SANDFLOW_TEST_DATABASE_URL (CI). On a
 * shared server each call gets its own schema so suites do not see each other.
 */
export async function createTestDatabase(): Promise<Knex> {
  const url = process.env.SANDFLOW_TEST_DATABASE_URL;
  if (!url) {
    const db = knexFactory({
      client: ClientPgLite as unknown as typeof knexFactory.Client,
      dialect: 'postgres',
      connection: {},
    });
    await migrateApi(db);
    return db;
  }
  const schema = `t_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = knexFactory({ client: 'pg', connection: url });
  await admin.raw(`CREATE SCHEMA "${schema}"`);
  await admin.destroy();
  const db = knexFactory({ client: 'pg', connection: url, searchPath: [schema], pool: { min: 0, max: 4 } });
  await migrateApi(db);
  cleanups.set(db, async () => {
    await db.raw(`DROP SCHEMA "${schema}" CASCADE`);
  });
  return db;
}

/**
 * A second handle on the same PostgreSQL database and schema, as another API process
 * (replica) would hold; null on PGlite, which one process owns. Close it with `db.destroy()`.
 */
export function openReplicaDatabase(db: Knex): Knex | null {
  const config = db.client.config as Knex.Config;
  if (config.client !== 'pg') return null;
  return knexFactory({
    client: 'pg',
    connection: config.connection,
    searchPath: config.searchPath,
    pool: { min: 0, max: 4 },
  });
}
