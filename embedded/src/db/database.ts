import fs from 'node:fs';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import ClientPgLite from 'knex-pglite';

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
    connection: options.pgliteDir ? { filename: options.pgliteDir } : {},
    useNullAsDefault: true,
  });
}

/** A database for tests: PGlite in memory, or the server named by SANDFLOW_TEST_DATABASE_URL. */
export function createTestDatabase(): Knex {
  return createDatabase({ url: process.env.SANDFLOW_TEST_DATABASE_URL });
}
