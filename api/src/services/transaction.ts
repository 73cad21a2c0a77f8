import type { Knex } from 'knex';
import { readCachesFor } from './read-caches.js';

/**
 * `db.transaction(work)`, then the read caches emptied once the transaction has ended,
 * here and in the other API processes: other connections see its writes only from the
 * COMMIT on. Services use this, never `db.transaction` directly (a test holds them to it).
 */
export async function transaction<R>(db: Knex, work: (trx: Knex.Transaction) => Promise<R>): Promise<R> {
  try {
    return await db.transaction(work);
  } finally {
    readCachesFor(db).invalidateAll();
  }
}
