import fs from 'node:fs';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import ClientPgLite from 'knex-pglite';
import { openPGlite } from './pglite.js';

export interface DatabaseOptions {
  /** A postgres:// URL; when absent an embedded PGlite database is used. */
  url?: string | undefined;
  /** Folder for the PGlite files; omitted = in memory (tests). */
  pgliteDir?: string | undefined;
}

/**
 * One knex instance for the whole process. PGlite allows a single connection, so
 * knex-pglite pins the pool to one; a real PostgreSQL gets a normal pool.
 */
export function createDatabase(options: DatabaseOptions): Knex {
  if (options.url) {
    return knexFactory({ client: 'pg', connection: options.url, pool: { min: 0, max: 10 } });
  }
  if (options.pgliteDir) fs.mkdirSync(path.dirname(options.pgliteDir), { recursive: true });
  return knexFactory({
    client: ClientPgLite as unknown as typeof knexFactory.Client,
    dialect: 'postgres',
    // knex-pglite takes the PGlite instance it is given (knex's types do not know the key).
    connection: { pglite: openPGlite(options.pgliteDir) } as Knex.StaticConnectionConfig,
    useNullAsDefault: true,
  });
}

/**
 * A database for one test suite: PGlite in memory, or — when SANDFLOW_TEST_DATABASE_URL
 * names a PostgreSQL server — a freshly created database of its own there, so suites
 * running in parallel never share tables.
 */
export async function createTestDatabase(): Promise<Knex> {
  const url = process.env.SANDFLOW_TEST_DATABASE_URL;
  if (!url) return createDatabase({});
  const name = `sandflow_test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = createDatabase({ url });
  try {
    await admin.raw(`create database ${name}`);
  } finally {
    await admin.destroy();
  }
  const target = new URL(url);
  target.pathname = `/${name}`;
  return createDatabase({ url: target.toString() });
}
