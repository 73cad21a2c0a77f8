import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { servicesFor } from './index.js';
import { createHarness, type Harness } from '../test-support/harness.js';
import { createWorld, type World } from '../test-support/world.js';
import { CallerCache, readCachesFor, type CacheName } from './read-caches.js';
import { transaction } from './transaction.js';

let h: Harness;
let w: World;
beforeAll(async () => {
  h = await createHarness();
}, 60_000);
beforeEach(async () => {
  await h.reset();
  w = await createWorld(h.db);
});
afterEach(() => {
  vi.useRealTimers();
});
afterAll(() => h.close());

const as = async (userId: string, orgId: string | null = w.a.org.id) =>
  `Bearer ${await h.tokenFor(userId, orgId)}`;
const me = async (auth: string) => h.request.get('/api/v0/me').set('Authorization', auth);

/** Requests that fill the caches, so the next request can only be right if they were emptied. */
async function warm(auth: string) {
  for (let i = 0; i < 2; i++) {
    expect((await me(auth)).status).toBe(200);
    expect((await h.request.get('/api/v0/illumina/events').set('Authorization', auth)).status).toBe(200);
  }
  expect(readCachesFor(h.db).callers.size).toBeGreaterThan(0);
}

describe('caller cache: changes apply on the very next request', () => {
  it('an organization admin demoted by the super admin loses the role at once', async () => {
    const demoted = await as(w.a.orgAdmin.id);
    await warm(demoted);
    expect((await me(demoted)).body.result.role).toBe('organization_admin');
    const put = await h.request
      .put(`/api/v0/organizations/${w.a.org.id}/admin`)
      .set('Authorization', await as(w.superAdmin.id))
      .send({ admins: [w.a.user.email] });
    expect(put.status).toBe(200);

    expect((await me(demoted)).body.result.role).toBe('user');
    const again = await h.request
      .put(`/api/v0/organizations/${w.a.org.id}/admin`)
      .set('Authorization', demoted)
      .send({ admins: [w.a.orgAdmin.email] });
    expect([403, 404]).toContain(again.status);
    // The promoted one is an admin on their next request, too.
    expect((await me(await as(w.a.user.id))).body.result.role).toBe('organization_admin');
  });

  it('a member removed from the organization loses access to it at once', async () => {
    const removed = await as(w.a.user.id);
    await warm(removed);
    const org = async () => (await h.request.get('/api/v0/organization').set('Authorization', removed)).body;
    expect((await org()).result.id).toBe(w.a.org.id);
    const del = await h.request
      .delete(`/api/v0/user/${w.a.user.id}/organization/${w.a.org.id}`)
      .set('Authorization', await as(w.a.orgAdmin.id));
    expect(del.status).toBe(200);

    const after = await me(removed);
    expect(after.body.result.organizations).toEqual([]);
    expect(after.body.result.current_organization).toBeNull();
    expect((await org()).result).toBeNull();
    const events = await h.request.get('/api/v0/illumina/events').set('Authorization', removed);
    expect(events.body.result).toEqual([]);
  });

  it('a deleted account is refused on the next request', async () => {
    const deleted = await as(w.a.target.id);
    await warm(deleted);
    const del = await h.request
      .delete(`/api/v0/user/${w.a.target.id}`)
      .set('Authorization', await as(w.superAdmin.id));
    expect(del.status).toBe(200);
    expect((await me(deleted)).status).toBe(401);
  });

  it('a group admin removed from the group admins loses the role at once', async () => {
    const auth = await as(w.a.groupAdmin.id);
    await warm(auth);
    expect((await me(auth)).body.result.role).toBe('group_admin');
    const put = await h.request
      .put(`/api/v0/group/${w.a.group.id}`)
      .set('Authorization', await as(w.a.orgAdmin.id))
      .send({ admins: [] });
    expect(put.status).toBe(200);
    expect((await me(auth)).body.result.role).toBe('user');
  });

  it('a writer outside the services is seen once it says so (invalidateCaches), else after the TTL', async () => {
    const auth = await as(w.a.user.id);
    await warm(auth);
    await h
      .db('organization_members')
      .where({ organization_id: w.a.org.id, user_id: w.a.user.id })
      .update({ role: 'organization_admin' });
    expect((await me(auth)).body.result.role).toBe('user'); // nobody said anything yet
    servicesFor(h.deps).invalidateCaches();
    expect((await me(auth)).body.result.role).toBe('organization_admin');
  });

  it('own settings, quota and new events show on the next request', async () => {
    const auth = await as(w.a.user.id);
    await warm(auth);
    expect(
      (await h.request.put('/api/v0/tags').set('Authorization', auth).send({ color: '#112233', label: 'x' }))
        .status,
    ).toBe(200);
    expect(
      (
        await h.request
          .put('/api/v0/preferences/user')
          .set('Authorization', auth)
          .send({ preferences: { mail_notification: false } })
      ).status,
    ).toBe(200);
    const body = (await me(auth)).body.result;
    expect(body.tags).toEqual([{ label: 'x', color: '#112233' }]);
    expect(body.preferences).toEqual({ mail_notification: false });
    // Each of those changes was audited; the log shows them at once.
    const events = await h.request.get('/api/v0/illumina/events').set('Authorization', auth);
    expect(events.body.result.map((e: { data: unknown }) => e.data)).toEqual([
      [{ preferences: true }],
      [{ tags: true }],
    ]);

    const quota = await h.request
      .put(`/api/v0/user/${w.a.user.id}/quota`)
      .set('Authorization', await as(w.a.orgAdmin.id))
      .send({ quota: { group: w.a.group.id, cpu: 0, memory: 0, disk: 0, use_percentage: false } });
    expect(quota.status).toBe(200);
    const row = await h.db('group_members').where({ group_id: w.a.group.id, user_id: w.a.user.id }).first();
    expect((await me(auth)).body.result.quota).toEqual([
      expect.objectContaining({ group: w.a.group.id, cpu: Number(row.quota_cpu), use_percentage: false }),
    ]);
  });
});

describe('caller cache mechanics', () => {
  it('does not keep a load that overlapped an invalidation (a read racing a write)', async () => {
    const cache = new CallerCache<string>(60_000);
    let release!: (value: string) => void;
    const loading = cache.get('u', () => new Promise<string>((resolve) => (release = resolve)));
    cache.invalidate(); // a write committed while the old row was being read
    release('old');
    expect(await loading).toBe('old');
    expect(await cache.get('u', async () => 'new')).toBe('new');
    expect(await cache.get('u', async () => 'newer')).toBe('new'); // now cached
  });

  it('expires entries after the TTL and shares concurrent loads', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const cache = new CallerCache<number>(5_000);
    let loads = 0;
    const load = async () => ++loads;
    expect(await Promise.all([cache.get('u', load), cache.get('u', load)])).toEqual([1, 1]);
    expect(await cache.get('u', load)).toBe(1);
    vi.advanceTimersByTime(5_001);
    expect(await cache.get('u', load)).toBe(2);
  });

  it('verified access tokens stop working when they expire', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const tokens = servicesFor(h.deps).tokens;
    const token = await tokens.signAccessToken({ userId: w.a.user.id, organizationId: w.a.org.id });
    expect(await tokens.verifyAccessToken(token)).toEqual({
      userId: w.a.user.id,
      organizationId: w.a.org.id,
      issuedAt: Math.floor(Date.now() / 1000),
    });
    expect(await tokens.verifyAccessToken(token)).not.toBeNull(); // from the cache
    vi.advanceTimersByTime((h.deps.config.accessTokenSeconds + 1) * 1000);
    expect(await tokens.verifyAccessToken(token)).toBeNull();
  });

  it('every transaction of the API runs through transaction(), which empties the caches after COMMIT', () => {
    const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name);
        if (entry.isDirectory()) {
          if (entry.name !== 'test-support') walk(file);
        } else if (file.endsWith('.ts') && !file.endsWith('.test.ts') && !file.endsWith('transaction.ts')) {
          if (/\.transaction\(/.test(fs.readFileSync(file, 'utf8'))) offenders.push(path.relative(src, file));
        }
      }
    };
    walk(src);
    expect(offenders).toEqual([]);
  });
});

describe('caller cache: other API processes are told (fan-out)', () => {
  /** Records what would be sent to the other processes (the replica bus sets fanOut on PostgreSQL). */
  async function fannedOut(work: () => Promise<unknown>): Promise<CacheName[][]> {
    const caches = readCachesFor(h.db);
    const previous = caches.fanOut;
    const sent: CacheName[][] = [];
    caches.fanOut = (names) => void sent.push([...names].sort());
    try {
      await work();
    } finally {
      caches.fanOut = previous;
    }
    return sent;
  }

  const caller = async () => (await servicesFor(h.deps).loadCaller(w.a.user.id, w.a.org.id))!;
  it.each([
    [
      'users (callers and /me)',
      async () => servicesFor(h.deps).accounts.setPreferences(await caller(), { mail_notification: false }),
      [['callers', 'me']],
    ],
    [
      'a tag (/me), then its audit event (event pages)',
      async () => servicesFor(h.deps).profile.addTag(await caller(), 'x', '#010203'),
      [['me'], ['events']],
    ],
    [
      'events (event pages)',
      () =>
        servicesFor(h.deps).events.record(
          { userId: w.a.user.id, name: 'x' },
          { kind: 'sandboxes', action: 'create', subject: 's', organizationId: w.a.org.id },
        ),
      [['events']],
    ],
    ['a read', () => servicesFor(h.deps).profile.tags(w.a.user.id), []],
    [
      'a write to a table no cache reads',
      () => servicesFor(h.deps).mailer.send({ to: 'a@example.test', subject: 's', text: 't' }),
      [],
    ],
  ])('a service write outside a transaction, once it returned: %s', async (_case, work, expected) => {
    expect(await fannedOut(work)).toEqual(expected);
  });

  it('statements inside a transaction are told once it has ended, as every cache', async () => {
    const sent = await fannedOut(async () => {
      await transaction(h.db, async (trx) => {
        await trx('users').where({ id: w.a.user.id }).update({ first_name: 'Y' });
        await trx('events').delete();
        expect(readCachesFor(h.db).fanOut).toBeDefined();
      });
    });
    expect(sent).toEqual([['callers', 'events', 'me']]);
  });

  it('a rolled back transaction is told too (harmless), and what another process asks is not echoed', async () => {
    const sent = await fannedOut(async () => {
      await transaction(h.db, async (trx) => {
        await trx('users').where({ id: w.a.user.id }).update({ first_name: 'Z' });
        throw new Error('rollback');
      }).catch(() => undefined);
      readCachesFor(h.db).invalidateHere(['callers', 'me', 'events']);
    });
    expect(sent).toEqual([['callers', 'events', 'me']]);
  });
});
