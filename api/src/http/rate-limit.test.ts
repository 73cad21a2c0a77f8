import supertest from 'supertest';
import { describe, expect, it } from 'vitest';
import { createApp } from '../app.js';
import type { ApiConfig } from '../config.js';
import { closeServices } from '../services/index.js';
import { FIXTURE_PASSWORD, createUser } from '../test-support/fixtures.js';
import { createHarness, type Harness } from '../test-support/harness.js';
import { RATE_LIMITS_TABLE } from '../services/rate-limit-store.js';

const TOO_MANY = 'Too many attempts, retry later';

/**
 * Another API replica on the same database as `a`: on PostgreSQL a harness with its own pool,
 * services and limiters; PGlite belongs to one process, so there a second app (its own services
 * and limiters) on the same handle.
 */
async function replicaOf(a: Harness): Promise<{ request: Harness['request']; close(): Promise<void> }> {
  if (process.env.SANDFLOW_TEST_DATABASE_URL) {
    const b = await createHarness({ replicaOf: a, config: a.deps.config });
    return { request: b.request, close: () => b.close() };
  }
  const deps = { ...a.deps };
  return { request: supertest(createApp(deps)), close: () => closeServices(deps) };
}

/** Two replicas on one database, with these budgets. */
async function withReplicas(
  rateLimit: ApiConfig['rateLimit'],
  test: (a: Harness, b: Awaited<ReturnType<typeof replicaOf>>) => Promise<void>,
) {
  const a = await createHarness({ config: { rateLimit } });
  try {
    const b = await replicaOf(a);
    try {
      await test(a, b);
    } finally {
      await b.close();
    }
  } finally {
    await a.close();
  }
}

type Attempt = (request: Harness['request'], account: string, i: number) => supertest.Test;

const cases: [string, Partial<ApiConfig['rateLimit']>, Attempt, number][] = [
  [
    'per address (password reset requests)',
    { perAddress: 5 },
    (request, _account, i) => request.post('/api/v0/password').send({ username: `u${i}@example.test` }),
    200,
  ],
  [
    'per account (failed logins)',
    { perAccount: 5 },
    (request, account) => request.post('/api/v0/login').send({ username: account, password: 'Wrong-1!' }),
    401,
  ],
];

describe('credential rate limits across API replicas', () => {
  it.each(cases)(
    'share one budget %s',
    (_case, budget, attempt, allowed) =>
      withReplicas({ windowMs: 60_000, perAccount: 100, perAddress: 100, ...budget }, async (a, b) => {
        const { email } = await createUser(a.db);
        const onA = [];
        for (let i = 0; i < 5; i++) onA.push((await attempt(a.request, email, i)).status);
        expect(onA).toEqual(Array(5).fill(allowed));
        const sixth = await attempt(b.request, email, 5);
        expect(sixth.status).toBe(429);
        expect(sixth.body.error.message).toBe(TOO_MANY);
        expect((await attempt(a.request, email, 6)).status).toBe(429);
      }),
    60_000,
  );

  it(
    'count again once the window has ended',
    () =>
      withReplicas({ windowMs: 60_000, perAccount: 100, perAddress: 2 }, async (a, b) => {
        const ask = (request: Harness['request']) =>
          request.post('/api/v0/password').send({ username: 'u@example.test' });
        expect([
          (await ask(a.request)).status,
          (await ask(b.request)).status,
          (await ask(a.request)).status,
        ]).toEqual([200, 200, 429]);
        // The window ends (in the database, whose clock the store uses).
        await a.db(RATE_LIMITS_TABLE).update({ reset_at: a.db.raw("now() - interval '1 second'") });
        expect([
          (await ask(b.request)).status,
          (await ask(a.request)).status,
          (await ask(b.request)).status,
        ]).toEqual([200, 200, 429]);
      }),
    60_000,
  );

  it(
    'do not count successful logins against the account on any replica',
    () =>
      withReplicas({ windowMs: 60_000, perAccount: 2, perAddress: 100 }, async (a, b) => {
        const { email } = await createUser(a.db);
        const login = (request: Harness['request'], password: string) =>
          request.post('/api/v0/login').send({ username: email, password });
        /** The account's count, once the decrement a response triggers (on finish) has landed. */
        const settled = async () => {
          for (let i = 0; i < 100; i++) {
            const rows = await a
              .db(RATE_LIMITS_TABLE)
              .whereLike('key', 'credentials:account:%')
              .select('hits');
            if (rows.every((r: { hits: number }) => r.hits === 0)) return;
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
          throw new Error('the successful logins stayed counted');
        };
        for (const request of [a.request, b.request, a.request, b.request]) {
          expect((await login(request, FIXTURE_PASSWORD)).status).toBe(200);
          await settled();
        }
        expect([
          (await login(b.request, 'Wrong-1!')).status,
          (await login(a.request, 'Wrong-1!')).status,
          (await login(b.request, FIXTURE_PASSWORD)).status,
        ]).toEqual([401, 401, 429]);
      }),
    60_000,
  );
});
