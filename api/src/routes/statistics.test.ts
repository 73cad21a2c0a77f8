import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedRunRecord } from '../services/statistics-fixtures.js';
import { samplesOf, saveSamples } from '../services/statistics-sampler.js';
import { createGroup, type GroupFixture } from '../test-support/fixtures.js';
import { createHarness, type Harness } from '../test-support/harness.js';
import { createWorld, type World } from '../test-support/world.js';

/**
 * Statistics and billing routes over seeded run records of known totals (spec 2 §9 prices):
 *  run1  Alpha team, user,   COMPLETED  first 500m/512MB 30 min → 2000/2048  14 400 000 n$
 *                                       second 4000m/20000MB 30 min → 4000/32768 177 600 000 n$
 *  run2  Alpha team, target, ERROR      only 2000m/4096MB 90 min → 2000/4096  86 400 000 n$
 *  run3  Beta team (organization B)     500m/512MB 60 min                      28 800 000 n$
 *  run4  Others (A, orgAdmin only)      500m/512MB 60 min                      28 800 000 n$
 */
let h: Harness;
let w: World;
let others: GroupFixture;
const runs: Record<string, string> = {};

beforeAll(async () => {
  h = await createHarness();
  w = await createWorld(h.db);
  others = await createGroup(h.db, w.a.org, { name: 'Others', members: [w.a.orgAdmin] });
  runs.run1 = await seedRunRecord(h.db, {
    organizationId: w.a.org.id,
    groupId: w.a.group.id,
    userId: w.a.user.id,
    session: 's-1',
    sessionName: 'nightly',
    start: '2026-11-01T10:00:00Z',
    stop: '2026-11-01T11:00:00Z',
    steps: [
      { name: 'first', cpu: 500, memory: 512, start: '2026-11-01T10:00:00Z', stop: '2026-11-01T10:30:00Z' },
      {
        name: 'second',
        cpu: 4000,
        memory: 20000,
        start: '2026-11-01T10:30:00Z',
        stop: '2026-11-01T11:00:00Z',
      },
    ],
  });
  runs.run2 = await seedRunRecord(h.db, {
    organizationId: w.a.org.id,
    groupId: w.a.group.id,
    userId: w.a.target.id,
    session: 's-2',
    sessionName: 'hourly',
    status: 'ERROR',
    start: '2026-11-01T12:00:00Z',
    stop: '2026-11-01T13:30:00Z',
    steps: [
      {
        name: 'only',
        cpu: 2000,
        memory: 4096,
        start: '2026-11-01T12:00:00Z',
        stop: '2026-11-01T13:30:00Z',
        status: 'ERROR',
      },
    ],
  });
  runs.run3 = await seedRunRecord(h.db, {
    organizationId: w.b.org.id,
    groupId: w.b.group.id,
    userId: w.b.user.id,
    session: 's-b',
    start: '2026-11-01T10:00:00Z',
    stop: '2026-11-01T11:00:00Z',
    steps: [
      { name: 'b', cpu: 500, memory: 512, start: '2026-11-01T10:00:00Z', stop: '2026-11-01T11:00:00Z' },
    ],
  });
  runs.run4 = await seedRunRecord(h.db, {
    organizationId: w.a.org.id,
    groupId: others.id,
    userId: w.a.orgAdmin.id,
    session: 's-3',
    sessionName: 'others',
    start: '2026-11-01T19:00:00Z',
    stop: '2026-11-01T20:00:00Z',
    steps: [
      { name: 'o', cpu: 500, memory: 512, start: '2026-11-01T19:00:00Z', stop: '2026-11-01T20:00:00Z' },
    ],
  });
}, 60_000);
afterAll(() => h?.close());

type Who = 'superAdmin' | 'orgAdmin' | 'groupAdmin' | 'user' | 'target' | 'bAdmin';
const userOf = (who: Who) =>
  who === 'superAdmin' ? w.superAdmin : who === 'bAdmin' ? w.b.orgAdmin : w.a[who];
async function call(who: Who, method: 'get' | 'post', path: string, body?: object) {
  const org = who === 'bAdmin' ? w.b.org.id : w.a.org.id;
  const req = h.request[method](`/api/v0${path}`).set(
    'Authorization',
    `Bearer ${await h.tokenFor(userOf(who).id, org)}`,
  );
  return body ? req.send(body) : req;
}

const DAY = { start_date: '2026-11-01T00:00:00Z', end_date: '2026-11-02T00:00:00Z' };

describe('GET /statistic/options', () => {
  it.each([
    ['superAdmin', ['Alpha team', 'Others']],
    ['orgAdmin', ['Alpha team', 'Others']],
    ['groupAdmin', ['Alpha team']],
    ['user', ['Alpha team']],
    ['bAdmin', ['Beta team']],
  ] as const)('%s is offered %j', async (who, names) => {
    const res = await call(who, 'get', '/statistic/options');
    expect(res.status).toBe(200);
    expect(res.body.result.map((g: { name: string }) => g.name)).toEqual(names);
  });
});

describe('POST /statistic/runs', () => {
  it('counts outcomes and averages allocations per hour over one day, for an organization admin', async () => {
    const res = await call('orgAdmin', 'post', '/statistic/runs', {
      groups: [w.a.group.id, others.id],
      ...DAY,
    });
    expect(res.status).toBe(200);
    const [alpha, other] = res.body.result;
    expect(alpha).toMatchObject({
      id: w.a.group.id,
      name: 'Alpha team',
      scheduled: 0,
      running: 0,
      success: 1,
      failed: 1,
      stopped: 0,
      cpu: [
        { x: '2026-11-01T10:00:00Z', y: 250 }, // 500 m for half an hour
        { x: '2026-11-01T11:00:00Z', y: 2000 }, // 4000 m for half an hour, ended at 11:00
        { x: '2026-11-01T13:00:00Z', y: 3000 }, // 2000 m for 90 minutes, ended at 13:30
      ],
      memory: [
        { x: '2026-11-01T10:00:00Z', y: 256 },
        { x: '2026-11-01T11:00:00Z', y: 10000 },
        { x: '2026-11-01T13:00:00Z', y: 6144 },
      ],
    });
    expect(other).toMatchObject({
      name: 'Others',
      success: 1,
      failed: 0,
      cpu: [{ x: '2026-11-01T20:00:00Z', y: 500 }],
    });
  });

  it('reads daily points over a month and only runs ended in the range', async () => {
    const month = await call('user', 'post', '/statistic/runs', {
      groups: [w.a.group.id],
      start_date: '2026-10-15T00:00:00Z',
      end_date: '2026-11-15T00:00:00Z',
    });
    expect(month.status).toBe(200);
    // 500×0.5 h + 4000×0.5 h + 2000×1.5 h = 5250 millicore-hours over a 24 h day.
    expect(month.body.result[0].cpu).toEqual([{ x: '2026-11-01T00:00:00Z', y: 218.75 }]);
    const afternoon = await call('user', 'post', '/statistic/runs', {
      groups: [w.a.group.id],
      start_date: '2026-11-01T12:00:00Z',
      end_date: '2026-11-02T00:00:00Z',
    });
    expect(afternoon.body.result[0]).toMatchObject({ success: 0, failed: 1 });
  });

  it.each([
    ['user', () => [w.a.group.id, others.id], 'groups.1'],
    ['orgAdmin', () => [w.b.group.id], 'groups.0'],
    ['superAdmin', () => [w.b.group.id], 'groups.0'],
    ['orgAdmin', () => ['00000000-0000-4000-8000-000000000000'], 'groups.0'],
  ] as const)('%s asking for a group outside theirs gets 422 naming %s', async (who, groups, field) => {
    const res = await call(who, 'post', '/statistic/runs', { groups: groups(), ...DAY });
    expect(res.status).toBe(422);
    expect(res.body.error.message).toContain(field);
  });

  it.each([
    [{ start_date: '2026-11-02T00:00:00Z', end_date: '2026-11-01T00:00:00Z' }, 'start_date'],
    [{ start_date: 'yesterday', end_date: '2026-11-01T00:00:00Z' }, 'start_date'],
    [{ start_date: '2024-01-01T00:00:00Z', end_date: '2026-11-01T00:00:00Z' }, 'end_date'],
    // Outside what a timestamp column and toISOString agree on (year 0, year 10000 after the offset).
    [{ start_date: '0000-01-01T00:00:00Z', end_date: '0000-01-02T00:00:00Z' }, 'start_date'],
    [{ start_date: '9999-12-31T12:00:00Z', end_date: '9999-12-31T23:59:59-14:00' }, 'end_date'],
    [{ start_date: '1969-12-31T00:00:00Z', end_date: '1970-01-02T00:00:00Z' }, 'start_date'],
  ])('refuses the range %j with 422 naming %s', async (range, field) => {
    const res = await call('orgAdmin', 'post', '/statistic/runs', { groups: [w.a.group.id], ...range });
    expect(res.status).toBe(422);
    expect(res.body.error.message).toMatch(new RegExp(`^${field}:`));
  });
});

describe('GET /statistic/runs/{run}', () => {
  it.each(['superAdmin', 'orgAdmin', 'groupAdmin', 'user', 'target'] as const)(
    'answers run1 to %s',
    async (who) => {
      const res = await call(who, 'get', `/statistic/runs/${runs.run1}`);
      expect(res.status).toBe(200);
      expect(res.body.result).toEqual({
        run: runs.run1,
        session: 's-1',
        session_name: 'nightly',
        group: w.a.group.id,
        status: 'COMPLETED',
        start: '2026-11-01T10:00:00.000Z',
        stop: '2026-11-01T11:00:00.000Z',
        effective_time: 3_600_000,
        allocated_cpu: 4500,
        allocated_memory: 20512,
        allocated_disk: 200,
        steps: 2,
      });
    },
  );

  it.each([
    ['user', 'run4'], // another group of the organization
    ['groupAdmin', 'run4'],
    ['orgAdmin', 'run3'], // another organization's
    ['superAdmin', 'run3'],
    ['bAdmin', 'run1'],
  ] as const)('%s gets 404 for %s', async (who, run) => {
    const res = await call(who, 'get', `/statistic/runs/${runs[run]}`);
    expect(res.status).toBe(404);
  });

  it('refuses a run id that is not a uuid with 400 naming it', async () => {
    const res = await call('user', 'get', '/statistic/runs/nope');
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/^run:/);
  });
});

describe('cluster statistics', () => {
  const now = Date.now();
  const hourOf = (t: number) =>
    new Date(Math.floor(t / 3_600_000) * 3_600_000).toISOString().replace('.000Z', 'Z');
  /** A cluster manager of capacity 4000 m / 8192 MB / 10240 MB with `used` millicores allocated. */
  const cluster = (name: string, spec: object, used: number) => ({
    metadata: { name },
    spec: { resources: { cpu: 4000, memory: 8192, disk: 10240 }, ...spec },
    status: { free: { cpu: 4000 - used, memory: 8192 - used, disk: 10240 } },
  });

  beforeAll(async () => {
    const at = async (ms: number, used: { a: number; pub: number; b: number }) =>
      saveSamples(
        h.db,
        samplesOf(
          [
            cluster('cm-a', { organizations: [w.a.org.id] }, used.a),
            cluster('cm-pub', { public: true, title: 'Shared' }, used.pub),
            cluster('cm-b', { organizations: [w.b.org.id] }, used.b),
          ],
          new Map(),
          ms,
        ),
      );
    await at(now - 30 * 3_600_000, { a: 4000, pub: 4000, b: 4000 }); // older than 24 h
    await at(now - 2 * 3_600_000, { a: 1000, pub: 2000, b: 0 });
    await at(now - 3_600_000, { a: 3000, pub: 500, b: 3500 });
    // A second replica sampling the same minute writes nothing.
    await at(now - 3_600_000, { a: 0, pub: 0, b: 0 });
  });

  it.each([
    // who, spike, total (latest minute), max (capacity then)
    ['orgAdmin', 3500, 3500, 8000],
    ['superAdmin', 7000, 7000, 12000], // every cluster manager
    ['bAdmin', 4000, 4000, 8000],
  ] as const)(
    'GET /statistic/spike as %s: spike %i, now %i of %i millicores',
    async (who, spike, total, max) => {
      const res = await call(who, 'get', '/statistic/spike');
      expect(res.status).toBe(200);
      expect(res.body.result).toMatchObject({
        spike_cpu: spike,
        total_cpu: total,
        max_cpu: max,
        spike_disk: 0,
      });
    },
  );

  it('POST /statistic/clusters: the hourly peaks of the cluster managers the organization may use', async () => {
    const res = await call('orgAdmin', 'post', '/statistic/clusters', {
      groups: [w.a.group.id],
      start_date: new Date(now - 3 * 3_600_000).toISOString(),
      end_date: new Date(now).toISOString(),
    });
    expect(res.status).toBe(200);
    expect(
      res.body.result.map((c: { id: string; name: string; public: boolean }) => [c.id, c.name, c.public]),
    ).toEqual([
      ['cm-a', 'cm-a', false],
      ['cm-pub', 'Shared', true],
    ]);
    expect(res.body.result[0].capacity).toEqual({ cpu: 4000, memory: 8192, disk: 10240 });
    expect(res.body.result[0].cpu).toEqual([
      { x: hourOf(now - 2 * 3_600_000), y: 1000 },
      { x: hourOf(now - 3_600_000), y: 3000 },
    ]);
  });

  it.each([
    ['groupAdmin', 'get', '/statistic/spike', 403],
    ['user', 'get', '/statistic/spike', 403],
    ['user', 'post', '/statistic/clusters', 403],
  ] as const)('%s %s %s → %i', async (who, method, path, status) => {
    const res = await call(who, method, path, { groups: [], ...DAY });
    expect(res.status).toBe(status);
  });

  it('POST /statistic/clusters refuses another organization’s group with 422 naming it', async () => {
    const res = await call('orgAdmin', 'post', '/statistic/clusters', { groups: [w.b.group.id], ...DAY });
    expect(res.status).toBe(422);
    expect(res.body.error.message).toMatch(/^groups\.0:/);
  });

  it.each([
    ['orgAdmin', ['Alpha team', 'Others']],
    ['user', ['Alpha team']],
  ] as const)(
    'GET /statistic/spike/free as %s: the quota of each of its groups (nothing runs)',
    async (who, names) => {
      const res = await call(who, 'get', '/statistic/spike/free');
      expect(res.status).toBe(200);
      const quotas = await h
        .db('groups')
        .whereIn('name', names)
        .orderBy('name')
        .select('quota_cpu', 'quota_memory', 'quota_disk');
      expect(res.body.result.map((g: { name: string }) => g.name)).toEqual(names);
      expect(
        res.body.result.map((g: { cpu: number; memory: number; disk: number }) => [g.cpu, g.memory, g.disk]),
      ).toEqual(quotas.map((q) => [q.quota_cpu, q.quota_memory, q.quota_disk]));
    },
  );
});
