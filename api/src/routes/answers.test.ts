import { KINDS, Kube } from '@sandflow/kube';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { routeKey } from '../authorization.js';
import { startTestKube, type TestKube } from '../resources/test-kube.js';
import { routeDefinitions } from '../openapi-generate.js';
import { servicesFor } from '../services/index.js';
import { seedRunRecord } from '../services/statistics-fixtures.js';
import { samplesOf, saveSamples } from '../services/statistics-sampler.js';
import { deleteClusterManagers } from '../test-support/cluster-managers.js';
import { FIXTURE_PASSWORD } from '../test-support/fixtures.js';
import { createHarness, lastMailTo, tokenInMail, type Harness } from '../test-support/harness.js';
import { PNG_BYTES, createWorld, type World } from '../test-support/world.js';

let h: Harness;
let w: World;
beforeAll(async () => {
  h = await createHarness();
}, 60_000);
beforeEach(async () => {
  await h.reset();
  w = await createWorld(h.db);
  await seedLists();
});
afterAll(() => h.close());

/** Something in every list a route answers, so that its items are checked too. */
async function seedLists() {
  const services = servicesFor(h.deps);
  const actor = { userId: w.superAdmin.id, name: 'Super Admin' };
  await services.events.record(actor, {
    kind: 'groups',
    action: 'update',
    subject: w.a.group.name,
    organizationId: w.a.org.id,
    data: [{ name: true }],
  });
  for (const userId of [w.superAdmin.id, w.a.user.id])
    await services.notifications.notify({
      userId,
      organizationId: w.a.org.id,
      title: 'Run',
      type: 'success',
      text: 'done',
      data: { action: 'session', uuid: 'session-1', run_uuid: 'run-1' },
    });
  await h.db('tags').insert({ user_id: w.superAdmin.id, label: 'seeded', color: '#000000' });
  await h.db('contacts').insert({
    user_id: w.superAdmin.id,
    contacts: JSON.stringify([{ name: 'Ada', email: 'ada@example.test' }]),
  });
  await services.mailer.send({ to: w.a.user.email, subject: 'Hello', text: 'hello\n' });
}

interface Call {
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
  body?: object;
  /** Bearer token; default: the super admin, in organization a. */
  token?: string | null;
}

const as = (userId: string, organizationId: string | null = null) => h.tokenFor(userId, organizationId);
const nobody = async () => null;

async function signIn(email: string) {
  const res = await h.request.post('/api/v0/login').send({ username: email, password: FIXTURE_PASSWORD });
  return res.body.result as { access_token: string; refresh_token: string };
}

async function mailedToken(to: string) {
  return tokenInMail((await lastMailTo(h.db, to)).text);
}

/** One real request per route that answers the envelope, made to succeed. */
const CALLS: Record<string, (w: World) => Promise<Call>> = {
  'GET /healthz': async () => ({ method: 'get', path: '/healthz', token: await nobody() }),
  'POST /login': async (w) => ({
    method: 'post',
    path: '/login',
    body: { username: w.a.user.email, password: FIXTURE_PASSWORD },
    token: null,
  }),
  'GET /logout': async (w) => ({ method: 'get', path: '/logout', token: await as(w.a.user.id) }),
  'GET /refresh': async (w) => ({
    method: 'get',
    path: '/refresh',
    token: (await signIn(w.a.user.email)).refresh_token,
  }),
  'POST /password': async (w) => ({
    method: 'post',
    path: '/password',
    body: { username: w.a.user.email },
    token: null,
  }),
  'POST /password/:token': async (w) => {
    await h.request.post('/api/v0/password').send({ username: w.a.user.email });
    const token = await mailedToken(w.a.user.email);
    return { method: 'post', path: `/password/${token}`, body: { password: 'Other-Pass-1' }, token: null };
  },
  'PUT /password': async (w) => ({
    method: 'put',
    path: '/password',
    body: { old_password: FIXTURE_PASSWORD, new_password: 'Other-Pass-1' },
    token: await as(w.a.user.id, w.a.org.id),
  }),
  'POST /user': async () => ({
    method: 'post',
    path: '/user',
    body: {
      first_name: 'New',
      last_name: 'Person',
      email: 'new@example.test',
      password: 'Sandflow-1',
      organization: 'Founded',
    },
    token: null,
  }),
  'GET /verify/:token': async () => {
    await h.request.post('/api/v0/user').send({
      first_name: 'New',
      last_name: 'Person',
      email: 'new@example.test',
      password: 'Sandflow-1',
      organization: 'Founded',
    });
    return { method: 'get', path: `/verify/${await mailedToken('new@example.test')}`, token: null };
  },
  'GET /invite/:token': async (w) => {
    await invite(w, w.b.user.email);
    return { method: 'get', path: `/invite/${await mailedToken(w.b.user.email)}`, token: null };
  },
  'GET /invite/:token/accept': async (w) => {
    await invite(w, w.b.user.email);
    const token = await mailedToken(w.b.user.email);
    return { method: 'get', path: `/invite/${token}/accept`, token: await as(w.b.user.id, w.b.org.id) };
  },
  'GET /me': async () => ({ method: 'get', path: '/me' }),
  'GET /organization': async () => ({ method: 'get', path: '/organization' }),
  'GET /group/name': async (w) => ({
    method: 'get',
    path: '/group/name',
    token: await as(w.a.user.id, w.a.org.id),
  }),
  'POST /preferences/organization': async (w) => ({
    method: 'post',
    path: '/preferences/organization',
    body: { name: w.b.org.name },
  }),
  'PUT /preferences/user': async () => ({
    method: 'put',
    path: '/preferences/user',
    body: { preferences: { mail_notification: false } },
  }),
  'GET /notifications/new': async () => ({ method: 'get', path: '/notifications/new' }),
  'GET /tags': async () => ({ method: 'get', path: '/tags' }),
  'PUT /tags': async () => ({ method: 'put', path: '/tags', body: { color: '#123456', label: 'new' } }),
  'GET /contact': async () => ({ method: 'get', path: '/contact' }),
  'PUT /contact': async () => ({ method: 'put', path: '/contact', body: { contacts: [{ phone: '1' }] } }),
  'PUT /user/:user/avatar': async (w) => ({
    method: 'put',
    path: `/user/${w.superAdmin.id}/avatar`,
    body: { file_name: 'a.png', file_body: PNG_BYTES.toString('base64') },
  }),
  'POST /feedback': async () => ({ method: 'post', path: '/feedback', body: { subject: 's', content: 'c' } }),
  'GET /illumina/preferences': async () => ({ method: 'get', path: '/illumina/preferences', token: null }),
  'GET /illumina/license': async () => ({ method: 'get', path: '/illumina/license', token: null }),
  'GET /illumina/events': async () => ({ method: 'get', path: '/illumina/events' }),
  'GET /illumina/configuration': async () => ({ method: 'get', path: '/illumina/configuration' }),
  'POST /illumina/configuration': async () => ({
    method: 'post',
    path: '/illumina/configuration',
    body: { allow_new_organization: false, registry: { url: 'r.example', password: 'secret' } },
  }),
  'GET /organizations': async () => ({ method: 'get', path: '/organizations' }),
  'GET /organizations/capacity': async () => ({ method: 'get', path: '/organizations/capacity' }),
  'POST /organizations': async () => ({ method: 'post', path: '/organizations', body: { name: 'Gamma' } }),
  'PUT /organizations/:id': async (w) => ({
    method: 'put',
    path: `/organizations/${w.a.org.id}`,
    body: { name: 'Alpha 2' },
  }),
  'DELETE /organizations/:id': async (w) => ({ method: 'delete', path: `/organizations/${w.b.org.id}` }),
  'PUT /organizations/:id/admin': async (w) => ({
    method: 'put',
    path: `/organizations/${w.a.org.id}/admin`,
    body: { admins: [w.a.orgAdmin.id, w.a.user.email] },
  }),
  'PUT /organizations/:id/algorithm': async (w) => ({
    method: 'put',
    path: `/organizations/${w.a.org.id}/algorithm`,
    body: { algorithm: 'fill_one' },
  }),
  'PUT /organizations/:id/registry': async (w) => ({
    method: 'put',
    path: `/organizations/${w.a.org.id}/registry`,
    body: { registry: { use_custom: true, url: 'https://r.example', username: 'u', password: 'p' } },
  }),
  'PUT /organizations/:id/mount': async (w) => ({
    method: 'put',
    path: `/organizations/${w.a.org.id}/mount`,
    body: { mount_points: ['data'], safe_mount: true },
  }),
  'GET /group': async () => ({ method: 'get', path: '/group' }),
  'POST /group': async (w) => ({
    method: 'post',
    path: '/group',
    body: { name: 'New team', members: [w.a.user.id], quota: { cpu: 100, memory: 100, disk: 100 } },
  }),
  'PUT /group/:id': async (w) => ({
    method: 'put',
    path: `/group/${w.a.group.id}`,
    body: { name: 'Renamed' },
  }),
  'DELETE /group/:id': async (w) => ({ method: 'delete', path: `/group/${w.a.group.id}` }),
  'GET /admin/username': async () => ({ method: 'get', path: '/admin/username' }),
  'GET /admin/group/users': async () => ({ method: 'get', path: '/admin/group/users' }),
  'GET /admin/users': async () => ({ method: 'get', path: '/admin/users' }),
  'GET /admin/users/organization': async () => ({ method: 'get', path: '/admin/users/organization' }),
  'PUT /user/:id/quota': async (w) => ({
    method: 'put',
    path: `/user/${w.a.user.id}/quota`,
    body: { quota: { group: w.a.group.id, cpu: 10, memory: 10, disk: 10 } },
  }),
  'POST /invite': async () => ({ method: 'post', path: '/invite', body: { users: ['guest@example.test'] } }),
  'DELETE /user/:id': async (w) => ({ method: 'delete', path: `/user/${w.b.user.id}` }),
  'DELETE /user/:id/group/:group': async (w) => ({
    method: 'delete',
    path: `/user/${w.a.user.id}/group/${w.a.group.id}`,
  }),
  'DELETE /user/:id/organization/:organization': async (w) => ({
    method: 'delete',
    path: `/user/${w.a.user.id}/organization/${w.a.org.id}`,
  }),
  'GET /admin/outbox': async () => ({ method: 'get', path: '/admin/outbox' }),
  'GET /statistic/options': async () => ({ method: 'get', path: '/statistic/options' }),
  'POST /statistic/runs': async (w) => {
    await seedRun(w);
    return {
      method: 'post',
      path: '/statistic/runs',
      body: { groups: [w.a.group.id], start_date: '2026-11-01T00:00:00Z', end_date: '2026-11-02T00:00:00Z' },
    };
  },
  'POST /statistic/clusters': async (w) => {
    await seedUsage(w);
    return {
      method: 'post',
      path: '/statistic/clusters',
      body: {
        groups: [w.a.group.id],
        start_date: HOUR_AGO,
        end_date: new Date(Date.now() + 60_000).toISOString(),
      },
    };
  },
  'GET /statistic/spike': async (w) => {
    await seedUsage(w);
    return { method: 'get', path: '/statistic/spike' };
  },
  'GET /statistic/spike/free': async () => ({ method: 'get', path: '/statistic/spike/free' }),
  'GET /statistic/runs/:run': async (w) => ({ method: 'get', path: `/statistic/runs/${await seedRun(w)}` }),
  'GET /billing': async (w) => {
    await seedRun(w);
    return { method: 'get', path: '/billing' };
  },
};

const HOUR_AGO = new Date(Date.now() - 3_600_000).toISOString();

/** One minute's usage sample of a cluster manager assigned to organization A. */
function seedUsage(w: World) {
  return saveSamples(
    h.db,
    samplesOf(
      [
        {
          metadata: { name: 'cm-a' },
          spec: { organizations: [w.a.org.id], resources: { cpu: 4000, memory: 8192, disk: 10240 } },
          status: { free: { cpu: 3000, memory: 4096, disk: 10000 } },
        },
      ],
      new Map(),
      Date.now() - 30 * 60_000,
    ),
  );
}

/** A recorded run of organization A's group, with two ended steps. */
function seedRun(w: World) {
  return seedRunRecord(h.db, {
    organizationId: w.a.org.id,
    groupId: w.a.group.id,
    userId: w.a.user.id,
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
}

/**
 * The cluster manager routes, against kube-lite (harness hk, world wk): the organization a has a
 * private ClusterManager `cm-a` (seen a minute ago) and there is the platform's.
 */
const KUBE_CALLS: Record<string, (w: World) => Promise<Call>> = {
  'GET /cluster': async () => ({ method: 'get', path: '/cluster' }),
  'GET /admin/cluster': async () => ({ method: 'get', path: '/admin/cluster' }),
  'POST /cluster': async (w) => ({ method: 'post', path: '/cluster', body: { organizations: [w.a.org.id] } }),
  'PUT /cluster/:id/name': async () => ({
    method: 'put',
    path: '/cluster/cm-a/name',
    body: { name: 'Rack 7' },
  }),
  'PUT /cluster/:id': async (w) => ({
    method: 'put',
    path: '/cluster/cm-a',
    body: { id: 'cm-a', organizations: [w.a.org.id, w.b.org.id], is_public: false },
  }),
  'DELETE /cluster/:id': async () => ({ method: 'delete', path: '/cluster/cm-a' }),
  'PUT /organizations/:id/disable/:clusterId': async (w) => ({
    method: 'put',
    path: `/organizations/${w.a.org.id}/disable/cm-a`,
    token: await hk.tokenFor(w.a.orgAdmin.id, w.a.org.id),
  }),
  'DELETE /organizations/:id/disable/:clusterId': async (w) => {
    await hk
      .db('organizations')
      .where({ id: w.a.org.id })
      .update({ disabled_clusters: JSON.stringify(['cm-a']) });
    return {
      method: 'delete',
      path: `/organizations/${w.a.org.id}/disable/cm-a`,
      token: await hk.tokenFor(w.a.orgAdmin.id, w.a.org.id),
    };
  },
};

let kube: TestKube;
let hk: Harness;
beforeAll(async () => {
  kube = await startTestKube();
  hk = await createHarness({ kube: kube.kubeConfig });
}, 60_000);
afterAll(async () => {
  await hk?.close();
  await kube?.close();
});

async function kubeWorld(): Promise<World> {
  await hk.reset();
  await deleteClusterManagers(kube.kubeConfig);
  const world = await createWorld(hk.db);
  const k = new Kube(kube.kubeConfig);
  for (const [name, spec] of [
    ['platform', { platformOwned: true, resources: { cpu: 4000, memory: 8192, disk: 10240 } }],
    ['cm-a', { organizations: [world.a.org.id], title: 'Alpha rack' }],
  ] as const) {
    await k.create(KINDS.clusterManager, undefined, {
      apiVersion: 'sandflow.io/v1alpha1',
      kind: 'ClusterManager',
      metadata: { name },
      spec,
    });
    await k.patchStatus(KINDS.clusterManager, undefined, name, {
      lastSeen: new Date(Date.now() - 60_000).toISOString(),
    });
  }
  return world;
}

async function invite(w: World, email: string) {
  const res = await h.request
    .post('/api/v0/invite')
    .set('Authorization', `Bearer ${await as(w.superAdmin.id, w.a.org.id)}`)
    .send({ users: [email] });
  expect(res.status).toBe(201);
}

const SANDBOX_ROUTES = [
  'GET /sandbox',
  'GET /sandbox/:uuid',
  'POST /sandbox',
  'PUT /sandbox/:uuid',
  'DELETE /sandbox',
  'POST /sandbox/:uuid/clone',
  'PUT /sandbox/:uuid/variables',
  'PUT /sandbox/:uuid/name',
];

/**
 * Routes whose success needs what this harness lacks (the sandbox builder, a registry, a
 * multipart body): their answers are parsed with their schemas (checkAnswers) where they are tested.
 */
const CHECKED_ELSEWHERE: Record<string, string> = {
  'GET /image/:name': 'api/src/routes/images.test.ts',
  'POST /parse/variables': 'api/src/routes/parse.test.ts',
  // Sandboxes live in Kubernetes: answered against kube-lite (checkAnswers) there.
  ...Object.fromEntries(SANDBOX_ROUTES.map((key) => [key, 'api/src/routes/sandboxes.test.ts'])),
  ...Object.fromEntries(
    [
      'GET /workflow',
      'GET /workflow/:uuid',
      'POST /workflow',
      'PUT /workflow/:uuid',
      'DELETE /workflow',
      'POST /workflow/:uuid/clone',
      'PUT /workflow/:uuid/name',
      'PUT /workflow/:uuid/variables/:sandbox',
      'PUT /workflow/:uuid/visibility',
    ].map((key) => [key, 'api/src/routes/workflows.test.ts']),
  ),
  ...Object.fromEntries(
    [
      'GET /session',
      'GET /session/workflows',
      'POST /session',
      'POST /session/instance',
      'POST /session/fast',
      'PUT /session/:uuid',
      'POST /session/:uuid/clone',
      'DELETE /session',
      'POST /session/:uuid/webhook',
      'DELETE /session/:uuid/webhook',
      'POST /hooks/session/:uuid/:secret',
      'GET /schedule/:uuid',
      'GET /event/:uuid',
      'GET /schedule/:uuid/run',
      'GET /event/:uuid/run',
      'GET /run/:uuid',
      'PUT /run/:uuid',
    ].map((key) => [key, 'api/src/routes/sessions.test.ts']),
  ),
  // Answered from argo-server (the local runner's subset) with the operator running.
  'GET /file/:uuid': 'tests/runs/logs.test.ts',
  'GET /run/:uuid/variables': 'tests/runs/variables.test.ts',
  ...Object.fromEntries(
    [
      'POST /image',
      'POST /image/:uuid',
      'DELETE /image/:uuid',
      'POST /image/:container/delete',
      'POST /container/:uuid/archive',
      'PUT /container/:uuid/archive',
      'POST /terminal',
    ].map((key) => [key, 'tests/sandbox-builder']),
  ),
};

const ROUTES = routeDefinitions();
const ENVELOPED = ROUTES.filter((r) => r.result && !(routeKey(r.method, r.path) in CHECKED_ELSEWHERE)).map(
  (r) => [routeKey(r.method, r.path), r] as const,
);
const ON_KUBE = ENVELOPED.filter(([key]) => key in KUBE_CALLS);
const OFF_KUBE = ENVELOPED.filter(([key]) => !(key in KUBE_CALLS));

describe('route answers', () => {
  it.each(ROUTES.map((r) => [routeKey(r.method, r.path), r] as const))(
    '%s declares its answer (a result schema, or what it sends instead)',
    (_key, r) => {
      expect(r.result ?? r.raw).toBeDefined();
    },
  );

  it('has one request below for every route that answers the envelope', () => {
    expect(Object.keys({ ...CALLS, ...KUBE_CALLS }).sort()).toEqual(ENVELOPED.map(([key]) => key).sort());
  });

  async function check(on: Harness, world: World, call: Call, r: (typeof ENVELOPED)[number][1]) {
    const token =
      call.token === undefined ? await on.tokenFor(world.superAdmin.id, world.a.org.id) : call.token;
    let req = on.request[call.method](`/api/v0${call.path}`);
    if (token) req = req.set('Authorization', `Bearer ${token}`);
    const res = await (call.body ? req.send(call.body) : req);
    expect(res.body.error).toBeUndefined();
    expect(res.status).toBe(r.status ?? 200);
    const parsed = r.result!.safeParse(res.body.result);
    expect(parsed.error?.issues ?? []).toEqual([]);
    if (Array.isArray(res.body.result)) expect(res.body.result.length).toBeGreaterThan(0);
  }

  it.each(OFF_KUBE)('%s answers what its result schema describes', async (key, r) => {
    await check(h, w, await CALLS[key]!(w), r);
  });

  it.each(ON_KUBE)('%s answers what its result schema describes (kube-lite)', async (key, r) => {
    const world = await kubeWorld();
    await check(hk, world, await KUBE_CALLS[key]!(world), r);
  });
});
