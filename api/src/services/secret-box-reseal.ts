// The startup step of the secret box: every stored registry password still in clear (saved before
// encryption) or sealed under SANDFLOW_SECRETS_KEY_PREVIOUS is sealed again under
// SANDFLOW_SECRETS_KEY. Idempotent (a value of the current key is not selected again), bounded
// (pages of `batch` rows in id order, each row looked at once per run), safe with several API
// replicas starting together (a row is only updated while it still holds what was read), and
// logged with counts. A value no configured key opens is left as it is and named in the log.
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { readCachesFor } from './read-caches.js';
import { ENVELOPE_PREFIX, SecretUnreadableError, type SecretBox } from './secret-box.js';

export interface ResealCounts {
  /** Passwords in clear now sealed. */
  sealed: number;
  /** Passwords of the previous key now sealed under the current one. */
  resealed: number;
  /** Passwords no configured key opens (left as they are). */
  unreadable: number;
  /** Passwords left in clear because no key is configured. */
  inClear: number;
}

const FIELD = 'registry.password';

export async function resealStoredSecrets(deps: {
  db: Knex;
  secrets: SecretBox;
  logger: Logger;
  /** Rows per page (default 100). */
  batch?: number;
}): Promise<ResealCounts> {
  const { db, secrets, logger } = deps;
  const batch = deps.batch ?? 100;
  const counts: ResealCounts = { sealed: 0, resealed: 0, unreadable: 0, inClear: 0 };

  /**
   * Seals one stored password again with `write(value)` (a conditional update: 0 when another
   * replica changed the row first) and counts what happened; a value no key opens is logged.
   */
  async function reseal(stored: string, what: string, write: (value: string) => Promise<number>) {
    if (!secrets.canSeal) {
      if (!stored.startsWith(ENVELOPE_PREFIX)) counts.inClear++;
      return;
    }
    let value: string;
    try {
      value = secrets.reseal(stored, what);
    } catch (error) {
      if (!(error instanceof SecretUnreadableError)) throw error;
      counts.unreadable++;
      logger.warn({ keyId: error.keyId }, error.message);
      return;
    }
    if ((await write(value)) > 0) counts[stored.startsWith(ENVELOPE_PREFIX) ? 'resealed' : 'sealed']++;
  }

  // Organizations: registry->>'password' not empty and not already sealed by the current key.
  const current = secrets.keyId ? `${ENVELOPE_PREFIX}v1:${secrets.keyId}:%` : null;
  let after = '';
  for (;;) {
    const rows: { id: string; slug: string; password: string }[] = await db('organizations')
      .select('id', 'slug', db.raw("registry->>'password' as password"))
      .whereRaw("coalesce(registry->>'password', '') <> ''")
      .modify((q) => {
        if (current) q.whereRaw("registry->>'password' not like ?", [current]);
        if (after) q.where('id', '>', after);
      })
      .orderBy('id')
      .limit(batch);
    for (const row of rows)
      await reseal(row.password, `${FIELD} of organization ${row.slug}`, (value) =>
        db('organizations')
          .where({ id: row.id })
          .whereRaw("registry->>'password' = ?", [row.password])
          .update({ registry: db.raw("jsonb_set(registry, '{password}', to_jsonb(?::text))", [value]) }),
      );
    if (rows.length < batch) break;
    after = rows[rows.length - 1]!.id;
  }
  if (counts.sealed + counts.resealed > 0) readCachesFor(db).wrote(db, 'organizations');

  // The platform default registry (one row of platform_settings).
  const platform: { password: string | null } | undefined = await db('platform_settings')
    .where({ key: 'registry' })
    .first(db.raw("value->>'password' as password"));
  if (platform?.password && !secrets.isCurrent(platform.password))
    await reseal(platform.password, `${FIELD} of the platform`, (value) =>
      db('platform_settings')
        .where({ key: 'registry' })
        .whereRaw("value->>'password' = ?", [platform.password])
        .update({ value: db.raw("jsonb_set(value, '{password}', to_jsonb(?::text))", [value]) }),
    );

  if (counts.inClear > 0)
    logger.warn(
      counts,
      `${counts.inClear} stored registry password(s) are in clear: set SANDFLOW_SECRETS_KEY to encrypt them`,
    );
  else if (secrets.canSeal)
    logger.info(
      { ...counts, keyId: secrets.keyId },
      'stored registry passwords encrypted under SANDFLOW_SECRETS_KEY',
    );
  return counts;
}
