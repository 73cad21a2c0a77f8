import type { Knex } from 'knex';

/**
 * Short-lived, in-process read caches: what `loadCaller` reads (the person and their
 * memberships, keyed by user id), the rows behind GET /me and the pages of GET
 * /illumina/events, so that the most frequent requests skip their SQL statements.
 *
 * They never serve what this process has overwritten:
 * - every write to a table a cache is built from (for the caller: users, organizations,
 *   organization_members, groups, group_members), seen through the knex `query` and
 *   `query-response` events, empties that cache at once: writes outside a transaction are
 *   visible on the very next request;
 * - writes inside a transaction are visible to other connections only after COMMIT, which
 *   knex reports to no listener, so every transaction of the services runs through
 *   `transaction()` below, which empties the cache again once it has committed (a test fails
 *   when a service calls `db.transaction` directly);
 * - a load that overlapped an invalidation is not stored (generation check), so a read of
 *   the old rows that raced a write cannot outlive it.
 * Several API processes on one PostgreSQL database tell each other (services/replica-bus.ts,
 * LISTEN/NOTIFY): a statement that completed outside a transaction, and every transaction
 * once it has ended, send the names of the caches to empty to the other processes, which
 * empty theirs when the message arrives (milliseconds after the COMMIT). The TTL only bounds
 * what no message can cover: a message lost while a listening connection was down (the
 * caches are emptied when it comes back) or a writer that is not an API process.
 */
export const CALLER_CACHE_TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;

const CALLER_TABLES = /\b(users|organizations|organization_members|groups|group_members)\b/i;
const WRITE = /\b(insert|update|delete|truncate|drop|alter|merge)\b/i;

/** True for a statement that may change what a caller is built from. */
export function changesCallers(sql: string): boolean {
  return WRITE.test(sql) && CALLER_TABLES.test(sql);
}

/** A TTL map whose loads are dropped when an invalidation overlapped them. */
export class CallerCache<T> {
  private readonly entries = new Map<string, { value: T; expires: number }>();
  private readonly inFlight = new Map<string, { generation: number; promise: Promise<T | null> }>();
  private generation = 0;

  constructor(private readonly ttlMs: number = CALLER_CACHE_TTL_MS) {}

  invalidate(): void {
    this.generation++;
    this.entries.clear();
    this.inFlight.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  /** The cached value, else `fetch()`'s (stored unless an invalidation happened meanwhile). */
  async get(key: string, fetch: () => Promise<T | null>): Promise<T | null> {
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && hit.expires > now) return hit.value;
    if (hit) this.entries.delete(key);
    // Concurrent misses for one person share one statement.
    const pending = this.inFlight.get(key);
    if (pending && pending.generation === this.generation) return pending.promise;
    const generation = this.generation;
    const promise = fetch().then(
      (value) => {
        if (this.inFlight.get(key)?.promise === promise) this.inFlight.delete(key);
        if (value !== null && generation === this.generation) {
          if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
          this.entries.set(key, { value, expires: Date.now() + this.ttlMs });
        }
        return value;
      },
      (error: unknown) => {
        if (this.inFlight.get(key)?.promise === promise) this.inFlight.delete(key);
        throw error;
      },
    );
    this.inFlight.set(key, { generation, promise });
    return promise;
  }
}

export const CACHE_NAMES = ['callers', 'me', 'events'] as const;
export type CacheName = (typeof CACHE_NAMES)[number];

/** The short-lived read caches of one database handle, each emptied by writes to its tables. */
export interface ReadCaches {
  /** user id → the person and their memberships (loadCaller). */
  callers: CallerCache<unknown>;
  /** user id + current organization → the rows behind GET /me. */
  me: CallerCache<unknown>;
  /** visibility scope + page → a page of GET /illumina/events. */
  events: CallerCache<unknown>;
  /** Empties the named caches of this process only (what a message from another process asks). */
  invalidateHere(names: readonly CacheName[]): void;
  /** Empties every cache, here and (through `fanOut`) in the other API processes. */
  invalidateAll(): void;
  /** Set by the replica bus: asks the other API processes to empty the named caches. */
  fanOut?: (names: CacheName[]) => void;
}

const ME_TABLES = /\b(users|organizations|organization_members|groups|group_members|tags|contacts)\b/i;
const EVENT_TABLES = /\b(events|organizations)\b/i;

// One set of caches per database handle: every app and service built on the same knex
// instance sees the same invalidations.
const byDb = new WeakMap<Knex, ReadCaches>();

export function readCachesFor(db: Knex): ReadCaches {
  let caches = byDb.get(db);
  if (!caches) {
    const callers = new CallerCache<unknown>();
    const me = new CallerCache<unknown>();
    const events = new CallerCache<unknown>();
    const created: ReadCaches = {
      callers,
      me,
      events,
      invalidateHere(names) {
        for (const name of names) created[name].invalidate();
      },
      invalidateAll() {
        created.invalidateHere(CACHE_NAMES);
        created.fanOut?.([...CACHE_NAMES]);
      },
    };
    /**
     * `completed`: the statement has returned. One outside a transaction is then committed,
     * so the other processes are told; one inside is covered when `transaction()` ends.
     */
    const onStatement = (query: { sql?: unknown; __knexTxId?: unknown }, completed: boolean) => {
      const sql = query?.sql;
      if (typeof sql !== 'string' || !WRITE.test(sql)) return;
      const names: CacheName[] = [];
      if (CALLER_TABLES.test(sql)) names.push('callers');
      if (ME_TABLES.test(sql)) names.push('me');
      if (EVENT_TABLES.test(sql)) names.push('events');
      if (!names.length) return;
      created.invalidateHere(names);
      if (completed && !query.__knexTxId) created.fanOut?.(names);
    };
    // Before the statement runs (a load overlapping it is discarded) and after it returns
    // (nothing read before it completed survives).
    db.on('query', (query: { sql?: unknown }) => onStatement(query, false));
    db.on('query-response', (_response: unknown, query: { sql?: unknown }) => onStatement(query, true));
    db.on('query-error', (_error: unknown, query: { sql?: unknown }) => onStatement(query, true));
    byDb.set(db, created);
    caches = created;
  }
  return caches;
}

export function callerCacheFor<T>(db: Knex): CallerCache<T> {
  return readCachesFor(db).callers as CallerCache<T>;
}

/**
 * `db.transaction(work)`, then the read caches emptied once the transaction has ended,
 * here and in the other API processes: other connections see its writes only from the
 * COMMIT on. Services use this, never `db.transaction` directly.
 */
export async function transaction<R>(db: Knex, work: (trx: Knex.Transaction) => Promise<R>): Promise<R> {
  try {
    return await db.transaction(work);
  } finally {
    readCachesFor(db).invalidateAll();
  }
}
