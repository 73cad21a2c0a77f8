import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { servicesFor } from '../services/index.js';
import { FIXTURE_PASSWORD, createUser } from '../test-support/fixtures.js';
import { createHarness, lastMailTo, tokenInMail, type Harness } from '../test-support/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
}, 60_000);
beforeEach(() => h.reset());
afterAll(() => h.close());

/** Its own app, for tests that need another configuration (the rate limiters keep state). */
async function withHarness(config: Parameters<typeof createHarness>[0], test: (h: Harness) => Promise<void>) {
  const own = await createHarness(config);
  try {
    await test(own);
  } finally {
    await own.close();
  }
}

const registration = {
  first_name: 'Ada',
  last_name: 'Lovelace',
  email: 'ada@example.test',
  password: 'Engine-42',
  use_invitation: 'false',
  organization: 'Analytical',
};

async function registerAndVerify() {
  await h.request.post('/api/v0/user').type('form').send(registration).expect(200);
  const mail = await lastMailTo(h.db, registration.email);
  await h.request.get(`/api/v0/verify/${tokenInMail(mail.text)}`).expect(200);
}

describe('registration, verification and sign-in', () => {
  it('registers a new organization from a form body, verifies, signs in and reads /me', async () => {
    const registered = await h.request.post('/api/v0/user').type('form').send(registration);
    expect(registered.body).toEqual({ result: true, status: 200 });

    const unverified = await h.request
      .post('/api/v0/login')
      .send({ username: registration.email, password: registration.password });
    expect(unverified.status).toBe(403);

    const mail = await lastMailTo(h.db, registration.email);
    const verified = await h.request.get(`/api/v0/verify/${tokenInMail(mail.text)}`);
    expect(verified.body.result).toBe(true);
    // One use only.
    expect((await h.request.get(`/api/v0/verify/${tokenInMail(mail.text)}`)).body.error.message).toBe(
      'Verification fail',
    );

    const login = await h.request
      .post('/api/v0/login')
      .set('X-Back-Url', '/sandbox/list')
      .send({ username: 'ADA@example.test', password: registration.password });
    expect(login.status).toBe(200);
    expect(login.body.result).toMatchObject({
      access_token: expect.any(String),
      refresh_token: expect.any(String),
      url: '/sandbox/list',
    });
    const cookies = login.headers['set-cookie'] as unknown as string[];
    expect(cookies.join(';')).toMatch(/sf_access=.*HttpOnly.*SameSite=Strict/);

    const me = await h.request
      .get('/api/v0/me')
      .set('Authorization', `Bearer ${login.body.result.access_token}`);
    expect(me.body.result).toMatchObject({
      email: 'ada@example.test',
      role: 'organization_admin',
      uid: 1000,
      organizations: [{ name: 'Analytical', role: 'organization_admin' }],
      preferences: { mail_notification: true },
    });
    // The console's cookie works as well as the bearer header.
    const byCookie = await h.request
      .get('/api/v0/me')
      .set('Cookie', cookies.map((c) => c.split(';')[0]).join('; '));
    expect(byCookie.status).toBe(200);
  });

  it.each([
    ['a wrong password', 'ada@example.test', 'Wrong-pass1'],
    ['an unknown e-mail', 'nobody@example.test', 'Engine-42'],
  ])('answers Invalid credential for %s', async (_case, username, password) => {
    await registerAndVerify();
    const res = await h.request.post('/api/v0/login').send({ username, password });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      result: null,
      status: 401,
      error: { code: 'invalid_credential', message: 'Invalid credential' },
    });
  });

  it('ignores a back URL pointing off site', async () => {
    await registerAndVerify();
    const res = await h.request
      .post('/api/v0/login')
      .set('X-Back-Url', '//evil.test/x')
      .send({ username: registration.email, password: registration.password });
    expect(res.body.result.url).toBe('/dashboard');
  });

  it.each([
    ['a weak password', { password: 'weak' }, 422, 'password: Password too weak'],
    ['a bad e-mail', { email: 'not-an-email' }, 422, 'email: must be an e-mail address'],
    ['a missing first name', { first_name: undefined }, 422, 'first_name'],
    ['no organization name', { organization: undefined }, 422, 'organization: Required'],
    [
      'an unknown invitation',
      { use_invitation: 'true', invitation_link: 'x'.repeat(20) },
      422,
      'invitation_link',
    ],
  ])('refuses registration with %s', async (_case, change, status, message) => {
    const res = await h.request.post('/api/v0/user').send({ ...registration, ...change });
    expect(res.status).toBe(status);
    expect(res.body.error.message).toContain(message);
    expect(await h.db('users').count('* as n').first()).toEqual({ n: expect.anything() });
    expect(Number((await h.db('users').count('* as n').first())!.n)).toBe(0);
  });

  it('refuses a second account for the same e-mail', async () => {
    await registerAndVerify();
    const res = await h.request
      .post('/api/v0/user')
      .send({ ...registration, email: 'Ada@Example.test', organization: 'Other' });
    expect(res.status).toBe(409);
  });
});

describe('refresh tokens', () => {
  it('rotates, and a reused token revokes the whole family', async () => {
    await registerAndVerify();
    const login = await h.request
      .post('/api/v0/login')
      .send({ username: registration.email, password: registration.password });
    const first = login.body.result.refresh_token;

    const rotated = await h.request.get('/api/v0/refresh').set('Authorization', `Bearer ${first}`);
    expect(rotated.status).toBe(200);
    const second = rotated.body.result.refresh_token;
    expect(second).not.toBe(first);

    // The stolen first token is replayed: refused, and the legitimate second one dies with it.
    expect((await h.request.get('/api/v0/refresh').set('Authorization', `Bearer ${first}`)).status).toBe(401);
    expect((await h.request.get('/api/v0/refresh').set('Authorization', `Bearer ${second}`)).status).toBe(
      401,
    );
  });

  it('logout revokes the family held in the cookie', async () => {
    await registerAndVerify();
    const login = await h.request
      .post('/api/v0/login')
      .send({ username: registration.email, password: registration.password });
    const refresh = login.body.result.refresh_token;
    await h.request.get('/api/v0/logout').set('Cookie', `sf_refresh=${refresh}`).expect(200);
    expect((await h.request.get('/api/v0/refresh').set('Authorization', `Bearer ${refresh}`)).status).toBe(
      401,
    );
  });

  it('answers 401 without any token', async () => {
    expect((await h.request.get('/api/v0/refresh')).status).toBe(401);
    expect((await h.request.get('/api/v0/me')).status).toBe(401);
    expect((await h.request.get('/api/v0/me').set('Authorization', 'Bearer not-a-jwt')).status).toBe(401);
  });
});

describe('passwords', () => {
  it('resets by a one-use token and signs out every session', async () => {
    const user = await createUser(h.db);
    const login = await h.request
      .post('/api/v0/login')
      .send({ username: user.email, password: FIXTURE_PASSWORD });
    await h.request.post('/api/v0/password').send({ username: user.email }).expect(200);
    // Unknown addresses get the same answer.
    await h.request.post('/api/v0/password').send({ username: 'nobody@example.test' }).expect(200);
    const token = tokenInMail((await lastMailTo(h.db, user.email)).text);
    await new Promise((r) => setTimeout(r, 1100)); // `iat` has whole seconds

    await h.request
      .post(`/api/v0/password/${token}`)
      .type('form')
      .send({ password: 'Brand-new-1' })
      .expect(200);
    expect((await h.request.post(`/api/v0/password/${token}`).send({ password: 'Brand-new-2' })).status).toBe(
      400,
    );
    expect(
      (await h.request.post('/api/v0/login').send({ username: user.email, password: 'Brand-new-1' })).status,
    ).toBe(200);
    expect(
      (
        await h.request
          .get('/api/v0/refresh')
          .set('Authorization', `Bearer ${login.body.result.refresh_token}`)
      ).status,
    ).toBe(401);
    // The access token issued before the reset is refused too, not only after it expires.
    const me = await h.request
      .get('/api/v0/me')
      .set('Authorization', `Bearer ${login.body.result.access_token}`);
    expect(me.status).toBe(401);
  });

  it('refuses an expired reset token', async () => {
    const user = await createUser(h.db);
    await h.request.post('/api/v0/password').send({ username: user.email });
    await h.db('user_tokens').update({ expires_at: new Date(Date.now() - 1000) });
    const token = tokenInMail((await lastMailTo(h.db, user.email)).text);
    expect((await h.request.post(`/api/v0/password/${token}`).send({ password: 'Brand-new-1' })).status).toBe(
      400,
    );
  });

  it.each([
    [
      'a wrong current password',
      { old_password: 'nope', new_password: 'Brand-new-1' },
      400,
      'old_password: Invalid credential',
    ],
    [
      'a weak new password',
      { old_password: FIXTURE_PASSWORD, new_password: 'abc' },
      422,
      'new_password: Password too weak',
    ],
    ['a missing field', { old_password: FIXTURE_PASSWORD }, 422, 'new_password'],
  ])('refuses a change with %s', async (_case, body, status, message) => {
    const user = await createUser(h.db);
    const res = await h.request
      .put('/api/v0/password')
      .set('Authorization', `Bearer ${await h.tokenFor(user.id)}`)
      .send(body);
    expect(res.status).toBe(status);
    expect(res.body.error.message).toContain(message);
  });

  it('changes the password, ends the other sessions and keeps this one going with fresh tokens', async () => {
    const user = await createUser(h.db);
    const other = await h.request
      .post('/api/v0/login')
      .send({ username: user.email, password: FIXTURE_PASSWORD });
    // A token's `iat` has whole seconds: the other session's access token predates the change.
    await new Promise((r) => setTimeout(r, 1100));
    const res = await h.request
      .put('/api/v0/password')
      .set('Authorization', `Bearer ${await h.tokenFor(user.id)}`)
      .send({ old_password: FIXTURE_PASSWORD, new_password: 'Brand-new-1' });
    expect(res.status).toBe(200);
    expect(String(res.headers['set-cookie'])).toContain('HttpOnly');
    // The other session cannot refresh any more; this one can.
    const stale = await h.request
      .get('/api/v0/refresh')
      .set('Authorization', `Bearer ${other.body.result.refresh_token}`);
    expect(stale.status).toBe(401);
    // Nor use the access token it already holds (stateless, but older than the change).
    const me = (token: string) => h.request.get('/api/v0/me').set('Authorization', `Bearer ${token}`);
    expect((await me(other.body.result.access_token)).status).toBe(401);
    expect((await me(res.body.result.access_token)).status).toBe(200);
    const fresh = await h.request
      .get('/api/v0/refresh')
      .set('Authorization', `Bearer ${res.body.result.refresh_token}`);
    expect(fresh.status).toBe(200);
    expect(
      (await h.request.post('/api/v0/login').send({ username: user.email, password: 'Brand-new-1' })).status,
    ).toBe(200);
  });
});

describe('rate limiting', () => {
  it(
    'stops guessing on one account after the per-account budget',
    () =>
      withHarness(
        { config: { rateLimit: { windowMs: 60_000, perAccount: 3, perAddress: 100 } } },
        async (h) => {
          const user = await createUser(h.db);
          const statuses = [];
          for (let i = 0; i < 5; i++) {
            statuses.push(
              (await h.request.post('/api/v0/login').send({ username: user.email, password: 'Wrong-1!' }))
                .status,
            );
          }
          expect(statuses).toEqual([401, 401, 401, 429, 429]);
          // Another account from the same address still gets its own attempts.
          const other = await createUser(h.db);
          expect(
            (
              await h.request
                .post('/api/v0/login')
                .send({ username: other.email, password: FIXTURE_PASSWORD })
            ).status,
          ).toBe(200);
        },
      ),
    30_000,
  );

  it(
    'stops one address after the per-address budget',
    () =>
      withHarness(
        { config: { rateLimit: { windowMs: 60_000, perAccount: 100, perAddress: 2 } } },
        async (h) => {
          const statuses = [];
          for (let i = 0; i < 3; i++)
            statuses.push(
              (await h.request.post('/api/v0/password').send({ username: `u${i}@example.test` })).status,
            );
          expect(statuses).toEqual([200, 200, 429]);
        },
      ),
    30_000,
  );

  it.each([
    // Behind one trusted proxy hop, each forwarded client has its own budget …
    ['trusted', 1, [200, 200, 200, 200]],
    // … and without trust a client cannot buy a new budget by writing X-Forwarded-For itself.
    ['not trusted', false, [200, 200, 429, 429]],
  ] as const)(
    'counts per forwarded address only when the proxy is %s',
    (_case, trustProxy, expected) =>
      withHarness(
        { config: { trustProxy, rateLimit: { windowMs: 60_000, perAccount: 100, perAddress: 2 } } },
        async (h) => {
          const statuses = [];
          for (const client of ['203.0.113.1', '203.0.113.2'])
            for (let i = 0; i < 2; i++)
              statuses.push(
                (
                  await h.request
                    .post('/api/v0/password')
                    .set('X-Forwarded-For', client)
                    .send({ username: `u${i}@example.test` })
                ).status,
              );
          expect(statuses).toEqual(expected);
        },
      ),
    30_000,
  );
});

describe('first start', () => {
  it('creates the super admin once, with a generated password printed once', async () => {
    const printed: string[] = [];
    const accounts = servicesFor(h.deps).accounts;
    const created = await accounts.ensureSuperAdmin((line) => printed.push(line));
    expect(created?.email).toBe('admin@sandflow.local');
    expect(printed).toHaveLength(1);
    expect(printed[0]).toContain(created!.generatedPassword);
    expect(await accounts.ensureSuperAdmin((line) => printed.push(line))).toBeNull();
    expect(printed).toHaveLength(1);
    const login = await h.request
      .post('/api/v0/login')
      .send({ username: 'admin@sandflow.local', password: created!.generatedPassword });
    expect(login.status).toBe(200);
    const me = await h.request
      .get('/api/v0/me')
      .set('Authorization', `Bearer ${login.body.result.access_token}`);
    expect(me.body.result.role).toBe('admin');
  });

  it(
    'takes the super admin from the configuration when set',
    () =>
      withHarness(
        { config: { admin: { email: 'root@example.test', password: 'Root-pass-1' } } },
        async (h) => {
          const printed: string[] = [];
          await servicesFor(h.deps).accounts.ensureSuperAdmin((line) => printed.push(line));
          expect(printed).toEqual([]);
          expect(
            (
              await h.request
                .post('/api/v0/login')
                .send({ username: 'root@example.test', password: 'Root-pass-1' })
            ).status,
          ).toBe(200);
        },
      ),
    30_000,
  );
});

describe('rate limiting of password changes', () => {
  it(
    'counts failures per signed-in person, not for everyone together',
    () =>
      withHarness(
        { config: { rateLimit: { windowMs: 60_000, perAccount: 2, perAddress: 100 } } },
        async (h) => {
          const [mallory, alice] = [await createUser(h.db), await createUser(h.db)];
          const change = async (userId: string, old: string) =>
            (
              await h.request
                .put('/api/v0/password')
                .set('Authorization', `Bearer ${await h.tokenFor(userId)}`)
                .send({ old_password: old, new_password: 'Brand-new-1' })
            ).status;
          expect([
            await change(mallory.id, 'x'),
            await change(mallory.id, 'x'),
            await change(mallory.id, 'x'),
          ]).toEqual([400, 400, 429]);
          expect(await change(alice.id, FIXTURE_PASSWORD)).toBe(200);
        },
      ),
    30_000,
  );
});
