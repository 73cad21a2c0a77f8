import knexFactory, { type Knex } from 'knex';
import type { Options } from 'express-rate-limit';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, destroyTestDatabase, openReplicaDatabase } from '../test-support/database.js';
import { DatabaseStore, RATE_LIMITS_TABLE } from './rate-limit-store.js';

let db: Knex;
/** A second handle on the same database (PostgreSQL: another pool, as another replica holds). */
let other: Knex;
beforeAll(async () => {
  db = await createTestDatabase();
  other = openReplicaDatabase(db) ?? db;
}, 60_000);
beforeEach(() => db(RATE_LIMITS_TABLE).delete());
afterAll(async () => {
  if (other !== db) await other.destroy();
  await destroyTestDatabase(db);
});

/** What the store logged, as pino's JSON lines. */
function recordingLogger() {
  const lines: { level: number; msg: string; err?: { message: string }; limiter?: string }[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, lines };
}

function storeOn(
  handle: Knex,
  { prefix = 'test:', windowMs = 60_000, sweepEveryMs = 60_000, logger = pino({ level: 'silent' }) } = {},
) {
  const store = new DatabaseStore({ db: handle, logger, prefix, sweepEveryMs });
  store.init({ windowMs } as Options);
  return store;
}

const rows = () =>
  db(RATE_LIMITS_TABLE).orderBy('key').select<{ key: string; hits: number }[]>('key', 'hits');

describe('database rate limit store', () => {
  it('counts 50 increments from two replicas in parallel exactly', async () => {
    const [a, b] = [storeOn(db), storeOn(other)];
    const hits = await Promise.all(
      Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).increment('ada@example.test')),
    );
    expect(hits.map((h) => h.totalHits).sort((x, y) => x - y)).toEqual(
      Array.from({ length: 50 }, (_, i) => i + 1),
    );
    // One window for all of them.
    expect(new Set(hits.map((h) => h.resetTime?.getTime())).size).toBe(1);
    expect((await a.get('ada@example.test'))?.totalHits).toBe(50);
  }, 60_000);

  it('starts a new window once the old one has ended', async () => {
    const store = storeOn(db, { windowMs: 1_000 });
    const first = await store.increment('k');
    const second = await store.increment('k');
    expect([first.totalHits, second.totalHits]).toEqual([1, 2]);
    expect(second.resetTime).toEqual(first.resetTime);
    const ends = first.resetTime!.getTime();
    expect(ends - Date.now()).toBeLessThanOrEqual(1_000);
    while (Date.now() <= ends + 50) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await store.get('k')).toBeUndefined();
    const next = await store.increment('k');
    expect(next.totalHits).toBe(1);
    expect(next.resetTime!.getTime()).toBeGreaterThan(ends);
  }, 30_000);

  it.each([
    ['one taken back', 3, 1, 2],
    ['more taken back than counted (never below zero)', 1, 3, 0],
  ])('decrements: %s', async (_case, increments, decrements, left) => {
    const store = storeOn(db);
    for (let i = 0; i < increments; i++) await store.increment('k');
    for (let i = 0; i < decrements; i++) await store.decrement('k');
    expect((await rows()).map((r) => r.hits)).toEqual([left]);
    expect((await store.increment('k')).totalHits).toBe(left + 1);
  });

  it('keeps limiters apart by prefix and stores no client key in clear', async () => {
    const [address, account] = [storeOn(db, { prefix: 'address:' }), storeOn(db, { prefix: 'account:' })];
    await address.increment('ada@example.test');
    await address.increment('ada@example.test');
    expect((await account.increment('ada@example.test')).totalHits).toBe(1);
    const stored = await rows();
    expect(stored.map((r) => [r.key.split(':')[0], r.hits])).toEqual([
      ['account', 1],
      ['address', 2],
    ]);
    expect(stored.map((r) => r.key).join()).not.toContain('ada');
    await address.resetAll();
    expect((await rows()).map((r) => r.key)).toEqual([account.rowKey('ada@example.test')]);
    await account.resetKey('ada@example.test');
    expect(await rows()).toEqual([]);
  });

  it('deletes ended windows of every limiter at most once per sweep interval', async () => {
    const ended = (key: string) =>
      db(RATE_LIMITS_TABLE).insert({ key, hits: 4, reset_at: db.raw("now() - interval '1 second'") });
    await ended('other-limiter:a');
    await ended('test:b');
    const store = storeOn(db, { sweepEveryMs: 60_000 });
    await store.increment('live');
    expect((await rows()).map((r) => r.key)).toEqual([store.rowKey('live')]);
    // Within the interval a new ended row stays …
    await ended('other-limiter:c');
    await store.increment('live');
    expect(await rows()).toHaveLength(2);
    // … and a store sweeping on every hit removes it.
    await storeOn(db, { sweepEveryMs: 0 }).increment('live');
    expect((await rows()).map((r) => [r.key, r.hits])).toEqual([[store.rowKey('live'), 3]]);
  });
});

describe('when the database fails', () => {
  it('counts in the process, logs the cause once, and goes back to the shared count', async () => {
    const { logger, lines } = recordingLogger();
    const store = storeOn(db, { logger, prefix: 'credentials:account:' });
    expect((await store.increment('k')).totalHits).toBe(1);
    await db.schema.renameTable(RATE_LIMITS_TABLE, 'rate_limits_away');
    try {
      // Still limited, not locked out: hits continue in memory for this replica.
      expect([(await store.increment('k')).totalHits, (await store.increment('k')).totalHits]).toEqual([
        1, 2,
      ]);
      await store.decrement('k'); // taken back where it was counted
      expect((await store.increment('k')).totalHits).toBe(2);
    } finally {
      await db.schema.renameTable('rate_limits_away', RATE_LIMITS_TABLE);
    }
    const errors = lines.filter((l) => l.level === 50);
    expect(errors).toHaveLength(1); // not once per request
    expect(errors[0]).toMatchObject({
      limiter: 'credentials:account:',
      msg: expect.stringContaining('counting in this process only'),
      err: { message: expect.stringContaining('rate_limits') },
    });
    // The database answers again: the shared row counts on from where it was.
    expect((await store.increment('k')).totalHits).toBe(2);
    expect(lines.at(-1)).toMatchObject({ level: 40, msg: expect.stringContaining('answers again') });
  });

  it('does not lock anyone out when the server cannot be reached', async () => {
    const { logger, lines } = recordingLogger();
    const unreachable = knexFactory({
      client: 'pg',
      connection: 'postgres://sandflow@127.0.0.1:1/sandflow',
      acquireConnectionTimeout: 5_000,
      log: { warn: () => {} }, // knex's own "Acquire connection error" line; the store logs the cause
    });
    try {
      const store = storeOn(unreachable, { logger });
      const hits = [];
      for (let i = 0; i < 3; i++) hits.push((await store.increment('k')).totalHits);
      expect(hits).toEqual([1, 2, 3]);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({
        level: 50,
        err: { message: expect.stringContaining('ECONNREFUSED') },
      });
    } finally {
      await unreachable.destroy();
    }
  }, 30_000);
});
