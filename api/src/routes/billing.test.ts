import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedRunRecord } from '../services/statistics-fixtures.js';
import { createGroup } from '../test-support/fixtures.js';
import { createHarness, type Harness } from '../test-support/harness.js';
import { createWorld, type World } from '../test-support/world.js';

/**
 * Billing over seeded step executions of known prices (spec 2 §9: smallest fitting size × 1.5):
 *  s-1 nightly (user)      first 500m/512MB 30 min → 0.0288 $/h → 14 400 000 n$
 *                          second 4000m/20000MB 30 min → 0.3552 $/h → 177 600 000 n$
 *  s-2 hourly (target)     only 2000m/4096MB 90 min → 0.0576 $/h → 86 400 000 n$
 *  s-3 others (orgAdmin)   o 500m/512MB 60 min → 28 800 000 n$
 *  s-b (organization B)    b 500m/512MB 60 min → 28 800 000 n$
 */
let h: Harness;
let w: World;

beforeAll(async () => {
  h = await createHarness();
  w = await createWorld(h.db);
  const others = await createGroup(h.db, w.a.org, { name: 'Others', members: [w.a.orgAdmin] });
  const step = (name: string, cpu: number, memory: number, start: string, stop: string) => ({
    name,
    cpu,
    memory,
    start,
    stop,
  });
  await seedRunRecord(h.db, {
    organizationId: w.a.org.id,
    groupId: w.a.group.id,
    userId: w.a.user.id,
    session: 's-1',
    sessionName: 'nightly',
    start: '2026-11-01T10:00:00Z',
    stop: '2026-11-01T11:00:00Z',
    steps: [
      step('first', 500, 512, '2026-11-01T10:00:00Z', '2026-11-01T10:30:00Z'),
      step('second', 4000, 20000, '2026-11-01T10:30:00Z', '2026-11-01T11:00:00Z'),
    ],
  });
  await seedRunRecord(h.db, {
    organizationId: w.a.org.id,
    groupId: w.a.group.id,
    userId: w.a.target.id,
    session: 's-2',
    sessionName: 'hourly',
    status: 'ERROR',
    start: '2026-11-01T12:00:00Z',
    stop: '2026-11-01T13:30:00Z',
    steps: [step('only', 2000, 4096, '2026-11-01T12:00:00Z', '2026-11-01T13:30:00Z')],
  });
  await seedRunRecord(h.db, {
    organizationId: w.a.org.id,
    groupId: others.id,
    userId: w.a.orgAdmin.id,
    session: 's-3',
    sessionName: 'others',
    start: '2026-11-01T19:00:00Z',
    stop: '2026-11-01T20:00:00Z',
    steps: [step('o', 500, 512, '2026-11-01T19:00:00Z', '2026-11-01T20:00:00Z')],
  });
  await seedRunRecord(h.db, {
    organizationId: w.b.org.id,
    groupId: w.b.group.id,
    userId: w.b.user.id,
    session: 's-b',
    sessionName: 'beta',
    start: '2026-11-01T10:00:00Z',
    stop: '2026-11-01T11:00:00Z',
    steps: [step('b', 500, 512, '2026-11-01T10:00:00Z', '2026-11-01T11:00:00Z')],
  });
}, 60_000);
afterAll(() => h?.close());

type Who = 'superAdmin' | 'orgAdmin' | 'groupAdmin' | 'user' | 'target' | 'bAdmin';
async function get(who: Who, path: string) {
  const user = who === 'superAdmin' ? w.superAdmin : who === 'bAdmin' ? w.b.orgAdmin : w.a[who];
  const org = who === 'bAdmin' ? w.b.org.id : w.a.org.id;
  return h.request.get(`/api/v0${path}`).set('Authorization', `Bearer ${await h.tokenFor(user.id, org)}`);
}

describe('GET /billing', () => {
  it.each([
    // who, sessions (name → dollars), records, total dollars, total nano-dollars
    [
      'superAdmin',
      [
        ['nightly', 0.19],
        ['hourly', 0.09],
        ['others', 0.03],
      ],
      4,
      0.31,
      '307200000',
    ],
    [
      'orgAdmin',
      [
        ['nightly', 0.19],
        ['hourly', 0.09],
        ['others', 0.03],
      ],
      4,
      0.31,
      '307200000',
    ],
    ['groupAdmin', [], 0, 0, '0'],
    ['user', [['nightly', 0.19]], 2, 0.19, '192000000'],
    ['target', [['hourly', 0.09]], 1, 0.09, '86400000'],
    ['bAdmin', [['beta', 0.03]], 1, 0.03, '28800000'],
  ] as const)('%s reads %j', async (who, sessions, total, amount, nano) => {
    const res = await get(who, '/billing');
    expect(res.status).toBe(200);
    const result = res.body.result;
    expect(
      result.sessions.map((s: { session_name: string; amount: number }) => [s.session_name, s.amount]),
    ).toEqual(sessions);
    expect({ total: result.total, amount: result.amount, amount_nano: result.amount_nano }).toEqual({
      total,
      amount,
      amount_nano: nano,
    });
    expect(result.records).toHaveLength(total);
  });

  it('answers the records newest first, each priced on its machine size, page by page', async () => {
    const first = await get('orgAdmin', '/billing?page_size=10');
    expect(
      first.body.result.records.map((r: Record<string, unknown>) => [
        r.sandbox_name,
        r.machine,
        r.amount_nano,
        r.amount,
        r.execution_time,
        r.timestamp,
      ]),
    ).toEqual([
      ['o', { cpu: 2000, memory: 2048 }, '28800000', 0.0288, 3_600_000_000_000, '2026-11-01T20:00:00.000Z'],
      [
        'only',
        { cpu: 2000, memory: 4096 },
        '86400000',
        0.0864,
        5_400_000_000_000,
        '2026-11-01T13:30:00.000Z',
      ],
      [
        'second',
        { cpu: 4000, memory: 32768 },
        '177600000',
        0.1776,
        1_800_000_000_000,
        '2026-11-01T11:00:00.000Z',
      ],
      [
        'first',
        { cpu: 2000, memory: 2048 },
        '14400000',
        0.0144,
        1_800_000_000_000,
        '2026-11-01T10:30:00.000Z',
      ],
    ]);
    expect(first.body.result.records[0]).toMatchObject({
      organization: w.a.org.id,
      paid: false,
      session: 's-3',
    });
    const second = await get('orgAdmin', '/billing?page=1&page_size=10');
    expect(second.body.result).toMatchObject({ records: [], page: 1, page_size: 10, total: 4 });
  });

  it.each([
    ['page_size=7', 'page_size'],
    ['page=-1', 'page'],
    ['size=10', 'query'],
  ])('refuses ?%s with 400 naming %s', async (query, field) => {
    const res = await get('user', `/billing?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(new RegExp(`^${field}`));
  });
});

describe('GET /billing/csv', () => {
  it('downloads the same records as CSV, with exact amounts', async () => {
    const res = await get('orgAdmin', '/billing/csv');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    expect(res.headers['content-disposition']).toContain('billing.csv');
    const lines = res.text.trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      'id,timestamp,session,session_name,run,sandbox_name,status,execution_time_ns,machine_cpu,machine_memory,amount_usd,amount_nano,paid',
    );
    expect(lines.slice(1).map((l) => l.split(',').slice(10, 12))).toEqual([
      ['0.028800000', '28800000'],
      ['0.086400000', '86400000'],
      ['0.177600000', '177600000'],
      ['0.014400000', '14400000'],
    ]);
  });

  it('gives a plain member only their own records', async () => {
    const res = await get('target', '/billing/csv');
    expect(res.text.trimEnd().split('\r\n')).toHaveLength(2);
    expect(res.text).toContain(',hourly,');
  });
});

describe('without a current organization (a super admin who has not chosen one)', () => {
  const range = { groups: [], start_date: '2026-11-01T00:00:00Z', end_date: '2026-11-02T00:00:00Z' };
  const call = async (method: 'get' | 'post', path: string) =>
    h.request[method](`/api/v0${path}`)
      .set('Authorization', `Bearer ${await h.tokenFor(w.superAdmin.id)}`)
      .send(method === 'post' ? range : undefined);

  it.each([
    ['get', '/billing'],
    ['get', '/billing/csv'],
    ['get', '/statistic/options'],
    ['post', '/statistic/runs'],
    ['get', '/statistic/spike/free'],
    ['get', '/statistic/runs/00000000-0000-4000-8000-000000000000'],
  ] as const)('%s %s answers 422 naming the missing organization', async (method, path) => {
    const res = await call(method, path);
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'no_organization' });
    expect(res.body.error.message).toMatch(/^organization: no current organization/);
  });

  it.each([
    ['get', '/statistic/spike'],
    ['post', '/statistic/clusters'],
  ] as const)("%s %s answers every cluster manager's usage", async (method, path) => {
    expect((await call(method, path)).status).toBe(200);
  });
});
