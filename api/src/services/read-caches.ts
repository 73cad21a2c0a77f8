import type { Knex } from 'knex';

/**
 * Short-lived, in-process read caches: what `loadCaller` reads (the person and their
 * memberships, keyed by user id), the rows behind GET /me and the pages of GET
 * /illumina/events, so that the most frequent requests skip their SQL statements.
 *
 * They never serve what this process has overwritten, because the services that write say so:
 * - after a statement outside a transaction, the service calls `wrote(conn, ...tables)`,
 *   which empties the caches built from those tables here and in the other API processes;
 * - a transaction's writes are visible to other connections only after COMMIT, so every
 *   transaction of the services runs through `transaction()` (transaction.ts), which
 *   empties every cache, here and elsewhere, once it has ended (`wrote` inside one empties
 *   this process's caches at once, which drops any load overlapping the write);
 * - a load that overlapped an invalidation is not stored (generation check), so a read of
 *   the old rows that raced a write cannot outlive it.
 * Several API processes on one PostgreSQL database tell each other (services/replica-bus.ts,
 * LISTEN/NOTIFY): the names of the caches to empty reach the other processes milliseconds
 * after the write. The TTL only bounds what no message can cover: a message lost while a
 * listening connection was down (the caches are emptied when it comes back) or a writer
 * that is not an API process (tests writing rows directly call `invalidateAll`).
 */
export const CALLER_CACHE_TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;

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

/** The tables the caches are built from, and which caches each one feeds. */
const BUILT_FROM = {
  users: ['callers', 'me'],
  organizations: ['callers', 'me', 'events'],
  organization_members: ['callers', 'me'],
  groups: ['callers', 'me'],
  group_members: ['callers', 'me'],
  tags: ['me'],
  contacts: ['me'],
  events: ['events'],
} as const satisfies Record<string, readonly CacheName[]>;
export type CachedTable = keyof typeof BUILT_FROM;

/** The short-lived read caches of one database handle. */
export interface ReadCaches {
  /** user id → the person and their memberships (loadCaller). */
  callers: CallerCache<unknown>;
  /** user id + current organization → the rows behind GET /me. */
  me: CallerCache<unknown>;
  /** visibility scope + page → a page of GET /illumina/events. */
  events: CallerCache<unknown>;
  /**
   * A service wrote these tables on `conn`: the caches built from them are emptied here, and,
   * unless `conn` is a transaction (told when it ends), in the other API processes.
   */
  wrote(conn: Knex, ...tables: CachedTable[]): void;
  /** Empties the named caches of this process only (what a message from another process asks). */
  invalidateHere(names: readonly CacheName[]): void;
  /** Empties every cache, here and (through `fanOut`) in the other API processes. */
  invalidateAll(): void;
  /** Set by the replica bus: asks the other API processes to empty the named caches. */
  fanOut?: (names: CacheName[]) => void;
}

// One set of caches per database handle: every app and service built on the same knex
// instance sees the same invalidations.
const byDb = new WeakMap<Knex, ReadCaches>();

export function readCachesFor(db: Knex): ReadCaches {
  let caches = byDb.get(db);
  if (!caches) {
    const created: ReadCaches = {
      callers: new CallerCache<unknown>(),
      me: new CallerCache<unknown>(),
      events: new CallerCache<unknown>(),
      wrote(conn, ...tables) {
        const names = [...new Set(tables.flatMap((t) => BUILT_FROM[t]))];
        created.invalidateHere(names);
        if (!conn.isTransaction) created.fanOut?.(names);
      },
      invalidateHere(names) {
        for (const name of names) created[name].invalidate();
      },
      invalidateAll() {
        created.invalidateHere(CACHE_NAMES);
        created.fanOut?.([...CACHE_NAMES]);
      },
    };
    byDb.set(db, created);
    caches = created;
  }
  return caches;
}

export function callerCacheFor<T>(db: Knex): CallerCache<T> {
  return readCachesFor(db).callers as CallerCache<T>;
}
