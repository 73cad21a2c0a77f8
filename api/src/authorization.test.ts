import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { KINDS, Kube } from '@sandflow/kube';
import { AUTHORIZATION, ROLES, routeKey, type Role } from './authorization.js';
import { startTestKube, type TestKube } from './resources/test-kube.js';
import { deleteClusterManagers } from './test-support/cluster-managers.js';
import { createHarness, type Harness } from './test-support/harness.js';
import { PNG_BYTES, createWorld, type Tenant, type World } from './test-support/world.js';

/**
 * Route × role × own/other organization → the exact status. Statuses are listed in
 * the order of ROLES: admin (super), organization_admin, group_admin, user. The caller
 * always belongs to organization A (the super admin has it as current organization);
 * `other` targets organization B, where only the super admin may see anything.
 */
type Statuses = [number, number, number, number];
interface Case {
  request(
    w: World,
    t: Tenant,
  ): { method: 'get' | 'post' | 'put' | 'delete'; path: string; body?: object | Buffer; type?: string };
  own: Statuses;
  other?: Statuses;
  /**
   * Answered against kube-lite (the cluster manager routes): each organization has a private
   * ClusterManager, `cm-a` and `cm-b` (clusterOf).
   */
  kube?: true;
}

/** The private cluster manager of tenant t in the kube-lite cases. */
const clusterOf = (w: World, t: Tenant) => (t === w.a ? 'cm-a' : 'cm-b');

const ALL_OK: Statuses = [200, 200, 200, 200];
const ADMINS_ONLY: Statuses = [200, 200, 403, 403];
const SUPER_ONLY: Statuses = [200, 403, 403, 403];
const HIDDEN: Statuses = [200, 404, 404, 404];

const MATRIX: Record<string, Case> = {
  'GET /me': { request: () => ({ method: 'get', path: '/me' }), own: ALL_OK },
  'PUT /password': {
    request: () => ({
      method: 'put',
      path: '/password',
      body: { old_password: 'Sandflow-1', new_password: 'Sandflow-2' },
    }),
    own: ALL_OK,
  },
  'GET /invite/:token/accept': {
    request: () => ({ method: 'get', path: `/invite/${'x'.repeat(43)}/accept` }),
    own: [404, 404, 404, 404],
  },
  'GET /organization': { request: () => ({ method: 'get', path: '/organization' }), own: ALL_OK },
  'GET /group/name': { request: () => ({ method: 'get', path: '/group/name' }), own: ALL_OK },
  'POST /preferences/organization': {
    request: (_w, t) => ({ method: 'post', path: '/preferences/organization', body: { name: t.org.name } }),
    own: ALL_OK,
    other: HIDDEN,
  },
  'PUT /preferences/user': {
    request: () => ({
      method: 'put',
      path: '/preferences/user',
      body: { preferences: { mail_notification: false } },
    }),
    own: ALL_OK,
  },
  'GET /notifications/new': { request: () => ({ method: 'get', path: '/notifications/new' }), own: ALL_OK },
  'GET /tags': { request: () => ({ method: 'get', path: '/tags' }), own: ALL_OK },
  'PUT /tags': {
    request: () => ({ method: 'put', path: '/tags', body: { color: '#123456', label: 'x' } }),
    own: ALL_OK,
  },
  'GET /contact': { request: () => ({ method: 'get', path: '/contact' }), own: ALL_OK },
  'PUT /contact': {
    request: () => ({ method: 'put', path: '/contact', body: { contacts: [{ name: 'n' }] } }),
    own: ALL_OK,
  },
  'GET /user/:user/avatar': {
    request: (_w, t) => ({ method: 'get', path: `/user/${t.target.id}/avatar` }),
    own: ALL_OK,
    other: HIDDEN,
  },
  // Spec 1 §6 ownership: only one's own avatar (the super admin: anyone's).
  'PUT /user/:user/avatar': {
    request: (_w, t) => ({
      method: 'put',
      path: `/user/${t.target.id}/avatar`,
      body: PNG_BYTES,
      type: 'image/png',
    }),
    own: SUPER_ONLY,
    other: HIDDEN,
  },
  'GET /illumina/events': {
    request: () => ({ method: 'get', path: '/illumina/events?page=0' }),
    own: ALL_OK,
  },
  'POST /feedback': {
    request: () => ({ method: 'post', path: '/feedback', body: { subject: 's', content: 'c' } }),
    own: ALL_OK,
  },
  'GET /organizations': { request: () => ({ method: 'get', path: '/organizations' }), own: ALL_OK },
  // allow_new_organization is off in this world.
  'POST /organizations': {
    request: () => ({ method: 'post', path: '/organizations', body: { name: 'Gamma' } }),
    own: [201, 403, 403, 403],
  },
  'GET /organizations/capacity': {
    request: () => ({ method: 'get', path: '/organizations/capacity' }),
    own: SUPER_ONLY,
  },
  'PUT /organizations/:id': {
    request: (_w, t) => ({
      method: 'put',
      path: `/organizations/${t.org.id}`,
      body: { name: `${t.org.name} renamed` },
    }),
    own: ADMINS_ONLY,
    other: HIDDEN,
  },
  'DELETE /organizations/:id': {
    request: (_w, t) => ({ method: 'delete', path: `/organizations/${t.org.id}` }),
    own: SUPER_ONLY,
    other: HIDDEN,
  },
  'PUT /organizations/:id/admin': {
    request: (_w, t) => ({
      method: 'put',
      path: `/organizations/${t.org.id}/admin`,
      body: { admins: [t.orgAdmin.id] },
    }),
    own: ADMINS_ONLY,
    other: HIDDEN,
  },
  'PUT /organizations/:id/algorithm': {
    request: (_w, t) => ({
      method: 'put',
      path: `/organizations/${t.org.id}/algorithm`,
      body: { algorithm: 'fill_all' },
    }),
    own: ADMINS_ONLY,
    other: HIDDEN,
  },
  'PUT /organizations/:id/registry': {
    request: (_w, t) => ({
      method: 'put',
      path: `/organizations/${t.org.id}/registry`,
      body: { registry: { use_custom: false } },
    }),
    own: ADMINS_ONLY,
    other: HIDDEN,
  },
  'PUT /organizations/:id/mount': {
    request: (_w, t) => ({
      method: 'put',
      path: `/organizations/${t.org.id}/mount`,
      body: { mount_points: ['data'], safe_mount: true },
    }),
    own: ADMINS_ONLY,
    other: HIDDEN,
  },
  // Role matrix: the organization admin's alone, not even the super admin's.
  'PUT /organizations/:id/disable/:clusterId': {
    request: (w, t) => ({ method: 'put', path: `/organizations/${t.org.id}/disable/${clusterOf(w, t)}` }),
    own: [403, 200, 403, 403],
    other: [403, 404, 404, 404],
    kube: true,
  },
  'DELETE /organizations/:id/disable/:clusterId': {
    request: (w, t) => ({ method: 'delete', path: `/organizations/${t.org.id}/disable/${clusterOf(w, t)}` }),
    own: [403, 200, 403, 403],
    other: [403, 404, 404, 404],
    kube: true,
  },
  // Spec 3 §6: cluster managers. Everyone lists those their organization may use; the super admin
  // renames, sets visibility and deletes; an organization admin adds and unlinks their own.
  'GET /cluster': { request: () => ({ method: 'get', path: '/cluster' }), own: ALL_OK, kube: true },
  'GET /statistic/options': { request: () => ({ method: 'get', path: '/statistic/options' }), own: ALL_OK },
  // Every role of organization A reads its group (the group and user are members); B's group is
  // another organization's: 422 naming it, whoever asks in A.
  'POST /statistic/runs': {
    request: (_w, t) => ({
      method: 'post',
      path: '/statistic/runs',
      body: { groups: [t.group.id], start_date: '2026-10-01T00:00:00Z', end_date: '2026-11-01T00:00:00Z' },
    }),
    own: ALL_OK,
    other: [422, 422, 422, 422],
  },
  // No run is recorded in this world (route tests in routes/statistics.test.ts seed them).
  'GET /statistic/runs/:run': {
    request: () => ({ method: 'get', path: '/statistic/runs/6f1c1f0e-8a51-4d7e-9d0c-1a2b3c4d5e6f' }),
    own: [404, 404, 404, 404],
  },
  'POST /statistic/clusters': {
    request: (_w, t) => ({
      method: 'post',
      path: '/statistic/clusters',
      body: { groups: [t.group.id], start_date: '2026-10-01T00:00:00Z', end_date: '2026-11-01T00:00:00Z' },
    }),
    own: ADMINS_ONLY,
    other: [422, 422, 403, 403],
  },
  'GET /statistic/spike': { request: () => ({ method: 'get', path: '/statistic/spike' }), own: ADMINS_ONLY },
  'GET /statistic/spike/free': {
    request: () => ({ method: 'get', path: '/statistic/spike/free' }),
    own: ALL_OK,
  },
  'GET /billing': { request: () => ({ method: 'get', path: '/billing' }), own: ALL_OK },
  'GET /billing/csv': { request: () => ({ method: 'get', path: '/billing/csv' }), own: ALL_OK },
  'GET /admin/cluster': {
    request: () => ({ method: 'get', path: '/admin/cluster' }),
    own: SUPER_ONLY,
    kube: true,
  },
  'POST /cluster': {
    request: (_w, t) => ({ method: 'post', path: '/cluster', body: { organizations: [t.org.id] } }),
    own: [201, 201, 403, 403],
    other: [201, 403, 403, 403],
    kube: true,
  },
  'DELETE /cluster/:id': {
    request: (w, t) => ({ method: 'delete', path: `/cluster/${clusterOf(w, t)}` }),
    own: ADMINS_ONLY,
    other: [200, 404, 403, 403],
    kube: true,
  },
  'PUT /cluster/:id/name': {
    request: (w, t) => ({
      method: 'put',
      path: `/cluster/${clusterOf(w, t)}/name`,
      body: { name: 'Rack 7' },
    }),
    own: SUPER_ONLY,
    other: SUPER_ONLY,
    kube: true,
  },
  'PUT /cluster/:id': {
    request: (w, t) => ({ method: 'put', path: `/cluster/${clusterOf(w, t)}`, body: { is_public: true } }),
    own: SUPER_ONLY,
    other: SUPER_ONLY,
    kube: true,
  },
  'GET /group': { request: () => ({ method: 'get', path: '/group' }), own: [200, 200, 200, 403] },
  'POST /group': {
    request: () => ({
      method: 'post',
      path: '/group',
      body: { name: 'Fresh', quota: { cpu: 100, memory: 100, disk: 100 } },
    }),
    own: [201, 201, 403, 403],
  },
  'PUT /group/:id': {
    request: (_w, t) => ({ method: 'put', path: `/group/${t.group.id}`, body: { name: 'Renamed' } }),
    own: ADMINS_ONLY,
    other: HIDDEN,
  },
  'DELETE /group/:id': {
    request: (_w, t) => ({ method: 'delete', path: `/group/${t.group.id}` }),
    own: ADMINS_ONLY,
    other: HIDDEN,
  },
  'GET /admin/username': { request: () => ({ method: 'get', path: '/admin/username' }), own: ADMINS_ONLY },
  'GET /admin/group/users': {
    request: () => ({ method: 'get', path: '/admin/group/users' }),
    own: [200, 200, 200, 403],
  },
  'GET /admin/users': { request: () => ({ method: 'get', path: '/admin/users' }), own: SUPER_ONLY },
  'GET /admin/outbox': { request: () => ({ method: 'get', path: '/admin/outbox' }), own: SUPER_ONLY },
  'GET /admin/users/organization': {
    request: () => ({ method: 'get', path: '/admin/users/organization' }),
    own: ADMINS_ONLY,
  },
  'PUT /user/:id/quota': {
    request: (_w, t) => ({
      method: 'put',
      path: `/user/${t.target.id}/quota`,
      body: { quota: { group: t.group.id, cpu: 100, memory: 100, disk: 100 }, uid: 2000 },
    }),
    own: [200, 200, 200, 403],
    other: HIDDEN,
  },
  'POST /invite': {
    request: () => ({ method: 'post', path: '/invite', body: { users: 'new@example.test' } }),
    own: [201, 201, 403, 403],
  },
  'DELETE /user/:id': {
    request: (_w, t) => ({ method: 'delete', path: `/user/${t.target.id}` }),
    own: SUPER_ONLY,
    other: HIDDEN,
  },
  'DELETE /user/:id/group/:group': {
    request: (_w, t) => ({ method: 'delete', path: `/user/${t.target.id}/group/${t.group.id}` }),
    own: [200, 200, 200, 403],
    other: HIDDEN,
  },
  'DELETE /user/:id/organization/:organization': {
    request: (_w, t) => ({ method: 'delete', path: `/user/${t.target.id}/organization/${t.org.id}` }),
    own: ADMINS_ONLY,
    other: HIDDEN,
  },
  // Builder routes: any member (no 401/403); without a builder in these tests they answer 503.
  // The per-role walk with the real builder is tests/sandbox-builder.
  ...Object.fromEntries(
    (
      [
        ['POST /image', 'post', '/image', { source_image: 'busybox', source_version: 'latest', name: 'box' }],
        ['POST /image/:uuid', 'post', '/image/some-sandbox', {}],
        ['DELETE /image/:uuid', 'delete', '/image/c1', undefined],
        ['POST /image/:container/delete', 'post', '/image/c1/delete', undefined],
        ['POST /container/:uuid/archive', 'post', '/container/c1/archive', { name: 'a.txt' }],
        ['PUT /container/:uuid/archive', 'put', '/container/c1/archive', undefined],
        ['POST /terminal', 'post', '/terminal', { uuid: 'c1', rows: 46, cols: 160 }],
      ] as const
    ).map(([key, method, path, body]) => [
      key,
      { request: () => ({ method, path, ...(body ? { body } : {}) }), own: [503, 503, 503, 503] } as Case,
    ]),
  ),
  // An invalid reference is refused before any registry is asked (images.test.ts asks a real one).
  'GET /image/:name': {
    request: () => ({ method: 'get', path: '/image/Not%20An%20Image' }),
    own: [400, 400, 400, 400],
  },
  'POST /parse/variables': {
    request: () => ({
      method: 'post',
      path: '/parse/variables',
      type: 'multipart/form-data; boundary=XX',
      body: Buffer.from(
        '--XX\r\nContent-Disposition: form-data; name="file"; filename="v.csv"\r\n\r\nA,1\r\n--XX--\r\n',
      ),
    }),
    own: ALL_OK,
  },
  'GET /illumina/configuration': {
    request: () => ({ method: 'get', path: '/illumina/configuration' }),
    own: SUPER_ONLY,
  },
  'POST /illumina/configuration': {
    request: () => ({
      method: 'post',
      path: '/illumina/configuration',
      body: { allow_new_organization: false },
    }),
    own: SUPER_ONLY,
  },
};

/** Switching the current organization changes what the session points at, not any data. */
const NOT_MUTATING = new Set([
  'POST /preferences/organization',
  'POST /parse/variables',
  'POST /statistic/runs',
  'POST /statistic/clusters',
]);

const countEvents = async (on: Harness) => Number((await on.db('events').count('* as n').first())!.n);

const callerOf = (w: World, role: Role) =>
  ({ admin: w.superAdmin, organization_admin: w.a.orgAdmin, group_admin: w.a.groupAdmin, user: w.a.user })[
    role
  ];

let h: Harness;
let kube: TestKube;
/** The kube-lite harness of the `kube` cases. */
let hk: Harness;
beforeAll(async () => {
  h = await createHarness();
  kube = await startTestKube();
  hk = await createHarness({ kube: kube.kubeConfig });
}, 60_000);
beforeEach(() => h.reset());
afterAll(async () => {
  await h.close();
  await hk?.close();
  await kube?.close();
});

/** Each organization's private cluster manager, afresh. */
async function seedClusterManagers(w: World) {
  await deleteClusterManagers(kube.kubeConfig);
  const k = new Kube(kube.kubeConfig);
  for (const t of [w.a, w.b])
    await k.create(KINDS.clusterManager, undefined, {
      apiVersion: 'sandflow.io/v1alpha1',
      kind: 'ClusterManager',
      metadata: { name: clusterOf(w, t) },
      spec: { organizations: [t.org.id] },
    });
}

describe('the authorization table', () => {
  it('covers every signed-in route of the table, and only those', () => {
    // The sandbox, workflow, session and run routes act on custom resources: walked per role
    // against kube-lite in routes/sandboxes.test.ts, workflows.test.ts and sessions.test.ts; the
    // file routes with the operator and runner in tests/runs/logs.test.ts.
    const guarded = Object.entries(AUTHORIZATION)
      .filter(
        ([key, rule]) =>
          rule.access !== 'public' &&
          !/ \/(sandbox|workflow|session|schedule|event|run|file)(\/|$)/.test(key),
      )
      .map(([key]) => key);
    expect(Object.keys(MATRIX).sort()).toEqual(guarded.sort());
  });

  const cases = Object.entries(MATRIX).flatMap(([key, c]) =>
    (['own', 'other'] as const).flatMap((side) => {
      const statuses = side === 'own' ? c.own : c.other;
      return statuses ? ROLES.map((role, i) => ({ key, side, role, expected: statuses[i]!, c })) : [];
    }),
  );

  it.each(cases)(
    '$key as $role on $side organization → $expected',
    async ({ key, side, role, expected, c }) => {
      const on = c.kube ? hk : h;
      if (c.kube) await hk.reset();
      const w = await createWorld(on.db);
      if (c.kube) await seedClusterManagers(w);
      await on.db('platform_settings').insert({ key: 'allow_new_organization', value: 'false' });
      const { method, path, body, type } = c.request(w, side === 'own' ? w.a : w.b);
      expect(routeKey(method, key.split(' ')[1]!)).toBe(key);
      const token = await on.tokenFor(callerOf(w, role).id, w.a.org.id);
      let req = on.request[method](`/api/v0${path}`).set('Authorization', `Bearer ${token}`);
      if (type) req = req.type(type);
      const eventsBefore = await countEvents(on);
      const res = await (body ? req.send(body) : req);
      expect({ status: res.status, error: res.body.error }).toMatchObject({ status: expected });
      // Every mutating route that succeeded left an audit event; a refused one left none.
      const mutating = method !== 'get' && !NOT_MUTATING.has(key);
      expect(await countEvents(on)).toBe(eventsBefore + (mutating && res.status < 300 ? 1 : 0));
    },
  );

  it.each(Object.keys(MATRIX))('%s refuses a caller without a session with 401', async (key) => {
    const w = await createWorld(h.db);
    const { method, path } = MATRIX[key]!.request(w, w.a);
    expect((await h.request[method](`/api/v0${path}`)).status).toBe(401);
  });
});
