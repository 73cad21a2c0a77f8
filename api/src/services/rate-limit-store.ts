import { createHash } from 'node:crypto';
import { MemoryStore, type ClientRateLimitInfo, type Options, type Store } from 'express-rate-limit';
import type { Knex } from 'knex';
import type { Logger } from 'pino';

export const RATE_LIMITS_TABLE = 'rate_limits';
/** Rows whose window has ended are deleted at most this often (per limiter and process). */
export const SWEEP_EVERY_MS = 60_000;
/** While the database keeps failing, the failure is logged again at most this often. */
const LOG_AGAIN_MS = 60_000;

interface Row {
  hits: number;
  reset_at: Date | string;
}

const info = (row: Row): ClientRateLimitInfo => ({
  totalHits: Number(row.hits),
  resetTime: new Date(row.reset_at),
});

/**
 * An express-rate-limit store counting in the database every API replica uses, so a client has
 * one budget however many replicas answer it. One atomic upsert per hit (no lost counts between
 * replicas); the window is the database clock's. Keys are stored hashed, behind the limiter's
 * prefix: the table holds no e-mail address or reset token.
 *
 * When the database fails, the hit is counted in this process instead (an in-memory store with
 * the same window) and the failure is logged with its cause: a client keeps a budget per replica
 * rather than being let through unlimited or everyone being locked out, and the shared count
 * takes over again with the next hit the database accepts.
 */
export class DatabaseStore implements Store {
  readonly localKeys = false;
  readonly prefix: string;
  private readonly db: Knex;
  private readonly logger: Logger;
  private readonly sweepEveryMs: number;
  private readonly fallback = new MemoryStore();
  private windowMs = 60_000;
  private lastSweep = -Infinity;
  private failing = false;
  private lastLogged = -Infinity;

  constructor(options: { db: Knex; logger: Logger; prefix: string; sweepEveryMs?: number }) {
    this.db = options.db;
    this.logger = options.logger;
    this.prefix = options.prefix;
    this.sweepEveryMs = options.sweepEveryMs ?? SWEEP_EVERY_MS;
  }

  init(options: Options): void {
    this.windowMs = options.windowMs;
    this.fallback.init(options);
  }

  /** The stored key: the prefix, then a hash of the client key. */
  rowKey(key: string): string {
    return this.prefix + createHash('sha256').update(key).digest('base64url');
  }

  async increment(key: string): Promise<ClientRateLimitInfo> {
    let row: Row | undefined;
    try {
      const result = await this.db.raw<{ rows: Row[] }>(
        `INSERT INTO ${RATE_LIMITS_TABLE} AS r (key, hits, reset_at)
         VALUES (?, 1, now() + ?::double precision * interval '1 millisecond')
         ON CONFLICT (key) DO UPDATE SET
           hits = CASE WHEN r.reset_at <= now() THEN 1 ELSE r.hits + 1 END,
           reset_at = CASE WHEN r.reset_at <= now() THEN excluded.reset_at ELSE r.reset_at END
         RETURNING hits, reset_at`,
        [this.rowKey(key), this.windowMs],
      );
      row = result.rows[0];
      if (!row) throw new Error('the rate limit upsert returned no row');
    } catch (error) {
      this.failed(error, 'increment');
      const local = await this.fallback.increment(key);
      return { totalHits: local.totalHits, resetTime: local.resetTime };
    }
    this.recovered();
    // Counted in the database again: what this process counted during the failure is dropped.
    await this.fallback.resetKey(key);
    await this.sweep();
    return info(row);
  }

  async decrement(key: string): Promise<void> {
    // A hit counted in this process (the database failed) is taken back here.
    if (await this.fallback.get(key)) {
      await this.fallback.decrement(key);
      return;
    }
    try {
      await this.db(RATE_LIMITS_TABLE)
        .where({ key: this.rowKey(key) })
        .andWhere('hits', '>', 0)
        .andWhere('reset_at', '>', this.db.raw('now()'))
        .decrement('hits', 1);
    } catch (error) {
      this.failed(error, 'decrement');
    }
  }

  async get(key: string): Promise<ClientRateLimitInfo | undefined> {
    const row = (await this.db(RATE_LIMITS_TABLE)
      .where({ key: this.rowKey(key) })
      .andWhere('reset_at', '>', this.db.raw('now()'))
      .first('hits', 'reset_at')) as Row | undefined;
    return row ? info(row) : undefined;
  }

  async resetKey(key: string): Promise<void> {
    await this.fallback.resetKey(key);
    await this.db(RATE_LIMITS_TABLE)
      .where({ key: this.rowKey(key) })
      .delete();
  }

  async resetAll(): Promise<void> {
    await this.fallback.resetAll();
    await this.db(RATE_LIMITS_TABLE).whereRaw('starts_with(key, ?)', [this.prefix]).delete();
  }

  shutdown(): void {
    this.fallback.shutdown();
  }

  /** Deletes every limiter's ended rows, at most once per `sweepEveryMs`; a failure only logs. */
  private async sweep(): Promise<void> {
    const now = Date.now();
    if (now - this.lastSweep < this.sweepEveryMs) return;
    this.lastSweep = now;
    try {
      await this.db(RATE_LIMITS_TABLE).where('reset_at', '<=', this.db.raw('now()')).delete();
    } catch (error) {
      this.logger.warn({ err: error }, 'rate limit sweep of ended windows failed');
    }
  }

  private failed(error: unknown, during: string): void {
    const now = Date.now();
    if (this.failing && now - this.lastLogged < LOG_AGAIN_MS) return;
    this.failing = true;
    this.lastLogged = now;
    this.logger.error(
      { err: error, limiter: this.prefix, during },
      'rate limit store failed: counting in this process only until the database answers',
    );
  }

  private recovered(): void {
    if (!this.failing) return;
    this.failing = false;
    this.logger.warn({ limiter: this.prefix }, 'rate limit store answers again: counting across replicas');
  }
}
