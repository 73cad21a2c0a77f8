import { CustomObjectsApi } from '@kubernetes/client-node';
import type { Run, Session } from '@sandflow/crds';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestKube, type TestKube } from '../resources/test-kube.js';
import { servicesFor } from '../services/index.js';
import type { RealtimeMessage } from '../services/notifications.js';
import { replaceOverStatus } from '../services/sessions-scope.js';
import { createGroup, type GroupFixture } from '../test-support/fixtures.js';
import { createHarness, type Harness } from '../test-support/harness.js';
import { createWorld, type Tenant, type World } from '../test-support/world.js';

const SANDFLOW = { group: 'sandflow.io', version: 'v1alpha1' };
const SESSIONS = { ...SANDFLOW, plural: 'sessions' };
const RUNS = { ...SANDFLOW, plural: 'runs' };

let kube: TestKube;
let h: Harness;
let w: World;
let custom: CustomObjectsApi;
/** A group of organization A that the target is not a member of. */
let foreignGroup: GroupFixture;
const workflows = new Map<Tenant, string>();
const tokens = new Map<string, string>();
const messages: { userId: string; message: RealtimeMessage }[] = [];

async function as(user: { id: string }, org = w.a.org.id) {
  const key = `${user.id}:${org}`;
  if (!tokens.has(key)) tokens.set(key, await h.tokenFor(user.id, org));
  return `Bearer ${tokens.get(key)}`;
}
type Method = 'get' | 'post' | 'put' | 'delete';
async function call(user: { id: string } | null, method: Method, path: string, body?: object, org?: string) {
  const req = h.request[method](`/api/v0${path}`);
  if (user) req.set('Authorization', await as(user, org));
  return body ? req.send(body) : req;
}

const groupNs = (t: Tenant) => `sf-${t.org.slug}-${t.group.slug}`;
const sessionCr = (t: Tenant, id: string) =>
  custom.getNamespacedCustomObject({ ...SESSIONS, namespace: groupNs(t), name: id }) as Promise<Session>;
const runCr = (t: Tenant, id: string) =>
  custom.getNamespacedCustomObject({ ...RUNS, namespace: groupNs(t), name: id }) as Promise<Run>;
const count = async (t: Tenant, plural: string) =>
  (
    (await custom.listNamespacedCustomObject({ ...SANDFLOW, plural, namespace: groupNs(t) })) as {
      items: unknown[];
    }
  ).items.length;

async function until<T>(check: () => Promise<T | undefined | false> | T | undefined | false): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = await check();
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('condition never held');
}

const HOUR = 3_600_000;
/** The session form's body (spec 2 §3 "Session save payload"). */
function body(t: Tenant = w.a, overrides: Record<string, unknown> = {}) {
  const start = new Date(Date.now() + HOUR).toISOString();
  return {
    name: 'nightly',
    workflow_uuid: workflows.get(t)!,
    group: t.group.id,
    schedules: [
      {
        start,
        periodic_label: 'daily',
        periodic_value: 1,
        end: new Date(Date.now() + 72 * HOUR).toISOString(),
      },
    ],
    attempts: 2,
    notifications: [' Ops@Example.org', 'ops@example.org', 'lead@example.org'],
    notify_group: true,
    notify_organization: false,
    session_variables: { n1: [{ name: 'MODE', value: 'fast' }] },
    sandbox_resources: { second: { cpu: 500, memory: 512, disk: 100 } },
    cluster_pref: ['platform'],
    has_cluster_pref: true,
    ...overrides,
  };
}

async function sessionOf(t: Tenant = w.a, overrides: Record<string, unknown> = {}): Promise<string> {
  const res = await call(t.target, 'post', '/session', body(t, overrides), t.org.id);
  expect(res.status).toBe(201);
  return res.body.result.uuid as string;
}

/** A Run in the state the operator would have written. */
type Phase = NonNullable<NonNullable<Run['status']>['phase']>;
async function runIn(t: Tenant, session: string, phase: Phase): Promise<string> {
  const started = await call(t.target, 'post', '/session/fast', {
    uuid: session,
    workflow_uuid: workflows.get(t),
  });
  expect(started.status).toBe(201);
  const name = started.body.result.run_uuid as string;
  await setStatus(t, name, {
    phase,
    ...(phase === 'WAITING' ? {} : { startTime: new Date().toISOString() }),
    workflow: {
      name: 'wf',
      nodes: [
        { id: 'n1', name: 'first' },
        { id: 'n2', name: 'second' },
      ],
      edges: [{ id: 'e1', from: 'n1', to: 'n2', type: 'single' }],
    },
  });
  return name;
}

async function setStatus(t: Tenant, name: string, status: NonNullable<Run['status']>) {
  const run = await runCr(t, name);
  await custom.replaceNamespacedCustomObjectStatus({
    ...RUNS,
    namespace: groupNs(t),
    name,
    body: { ...run, status: { ...run.status, ...status } },
  });
  const services = servicesFor(h.deps);
  await until(() => services.resources!.runs.get(groupNs(t), name)?.status?.phase === status.phase);
}

beforeAll(async () => {
  kube = await startTestKube();
  h = await createHarness({ kube: kube.kubeConfig });
  w = await createWorld(h.db);
  foreignGroup = await createGroup(h.db, w.a.org, { name: 'Others', members: [w.a.orgAdmin] });
  const services = servicesFor(h.deps);
  for (const t of [w.a, w.b]) {
    await services.kube.syncOrganization(t.org);
    await services.kube.syncGroup(t.org, { ...t.group, quota: { cpu: 1000, memory: 1024, disk: 1024 } });
  }
  await services.kube.syncGroup(w.a.org, { ...foreignGroup, quota: { cpu: 1000, memory: 1024, disk: 1024 } });
  await services.resources!.synced;
  custom = kube.kubeConfig.makeApiClient(CustomObjectsApi);
  services.realtime.publisher = {
    publish: (userId, message) => void messages.push({ userId, message }),
    connected: () => true,
  };
  for (const t of [w.a, w.b]) {
    const box = await call(
      t.target,
      'post',
      '/sandbox',
      { name: 'box', entrypoint: '/run.sh', permissions: { _public: { read: true, execute: true } } },
      t.org.id,
    );
    expect(box.status).toBe(201);
    const wf = await call(
      t.target,
      'post',
      '/workflow',
      {
        name: 'pipeline',
        nodes: [
          { id: 'n1', name: 'first', src_id: box.body.result.uuid },
          { id: 'n2', name: 'second', src_id: box.body.result.uuid },
        ],
        edges: [{ id: 'e1', from: 'n1', to: 'n2', type: 'single' }],
        visibility: { type: 'public' },
      },
      t.org.id,
    );
    expect(wf.status).toBe(201);
    workflows.set(t, wf.body.result.uuid as string);
  }
}, 60_000);

afterAll(async () => {
  await h?.close();
  await kube?.close();
});

describe('session routes', () => {
  it('saves a session into its group namespace as the form sent it, and reads it back', async () => {
    const id = await sessionOf();
    const cr = await sessionCr(w.a, id);
    const uid = await h
      .db('organization_members')
      .where({ organization_id: w.a.org.id, user_id: w.a.target.id })
      .first('uid');
    const gid = await h.db('groups').where({ id: w.a.group.id }).first('gid');
    expect(cr.metadata.labels).toMatchObject({
      'sandflow.io/organization': w.a.org.id,
      'sandflow.io/group': w.a.group.id,
      'sandflow.io/owner': w.a.target.id,
    });
    expect(cr.metadata.annotations).toMatchObject({
      'sandflow.io/run-as-user': String(uid.uid),
      'sandflow.io/run-as-group': String(gid.gid),
    });
    expect(cr.spec).toMatchObject({
      name: 'nightly',
      workflow: workflows.get(w.a),
      workflowNamespace: `sf-${w.a.org.slug}`,
      type: 'schedule',
      group: w.a.group.id,
      owner: w.a.target.id,
      attempts: 2,
      variables: { first: [{ name: 'MODE', value: 'fast' }] }, // n1 is the node named first
      resources: { second: { cpu: 500, memory: 512, disk: 100 } },
      notifications: {
        emails: ['ops@example.org', 'lead@example.org'],
        notifyGroup: true,
        notifyOrganization: false,
      },
      clusterPreference: 'platform',
    });
    expect(cr.spec.schedules![0]).toMatchObject({ periodic: true, periodicLabel: 'daily', periodicValue: 1 });

    const detail = await call(w.a.target, 'get', `/schedule/${id}`);
    expect(detail.status).toBe(200);
    expect(detail.body.result).toMatchObject({
      uuid: id,
      name: 'nightly',
      workflow: 'pipeline',
      workflow_uuid: workflows.get(w.a),
      group: w.a.group.id,
      type: 'schedule',
      notifications: ['ops@example.org', 'lead@example.org'],
      notify_group: true,
      cluster_pref: ['platform'],
      has_cluster_pref: true,
      session_variables: { first: [{ name: 'MODE', value: 'fast' }] },
      run_count: 0,
      running: false,
      webhook: false,
      user_access: { read: true, write: true, execute: true, owner: true },
    });
    // The next run is the first schedule's start, an hour from now (the operator does not run here).
    expect(Date.parse(detail.body.result.next_run)).toBe(Date.parse(cr.spec.schedules![0]!.start));

    const list = await call(w.a.target, 'get', '/session');
    expect(list.body.result.find((s: { uuid: string }) => s.uuid === id)).toMatchObject({
      name: 'nightly',
      workflow: 'pipeline',
      type: 'schedule',
      has_run_list: false,
      run_count: 0,
      active: true,
      plans: [expect.objectContaining({ kind: 'schedule', periodic_label: 'daily', periodic_value: 1 })],
    });

    // A save of what GET answered changes nothing.
    const before = (await sessionCr(w.a, id)).metadata.resourceVersion;
    const resaved = await call(w.a.target, 'put', `/session/${id}`, {
      ...body(),
      session_variables: { first: [{ name: 'MODE', value: 'fast' }] },
      schedules: detail.body.result.schedules,
      notifications: detail.body.result.notifications,
    });
    expect(resaved.status).toBe(200);
    expect((await sessionCr(w.a, id)).metadata.resourceVersion).toBe(before);
  });

  it('updates (owner), keeps the workflow and group, clones and deletes with the runs', async () => {
    const id = await sessionOf();
    const updated = await call(
      w.a.target,
      'put',
      `/session/${id}`,
      body(w.a, { name: 'weekly', schedules: [] }),
    );
    expect(updated.status).toBe(200);
    expect((await sessionCr(w.a, id)).spec).toMatchObject({ name: 'weekly', schedules: [] });
    const moved = await call(
      w.a.target,
      'put',
      `/session/${id}`,
      body(w.a, { workflow_uuid: 'other-workflow' }),
    );
    expect(moved.status).toBe(400);
    expect(moved.body.error.message).toMatch(/^workflow_uuid: /);

    const clone = await call(w.a.user, 'post', `/session/${id}/clone`);
    expect(clone.status).toBe(201);
    expect(clone.body.result.name).toBe('weekly_copy');
    expect((await sessionCr(w.a, clone.body.result.uuid)).spec.owner).toBe(w.a.user.id);

    const run = await runIn(w.a, id, 'COMPLETED');
    const refused = await call(w.a.user, 'delete', `/session?sessions=${clone.body.result.uuid},${id}`);
    expect(refused.status).toBe(403);
    expect((await sessionCr(w.a, clone.body.result.uuid)).spec.name).toBe('weekly_copy'); // none deleted
    const deleted = await call(w.a.target, 'delete', `/session?sessions=${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.result).toEqual({ sessions: [id] });
    await expect(sessionCr(w.a, id)).rejects.toThrow();
    await expect(runCr(w.a, run)).rejects.toThrow();
  });

  it('lists the workflows a session may run', async () => {
    const res = await call(w.a.user, 'get', '/session/workflows');
    expect(res.status).toBe(200);
    expect(res.body.result).toContainEqual({
      uuid: workflows.get(w.a),
      name: 'pipeline',
      version: '1.0.0',
      valid: null,
    });
  });

  const BAD: [string, (t: Tenant) => Record<string, unknown>, number, RegExp][] = [
    [
      'a schedule ending before it starts',
      () => ({
        schedules: [
          {
            start: new Date(Date.now() + 2 * HOUR).toISOString(),
            periodic_label: 'hourly',
            periodic_value: 1,
            end: new Date(Date.now() + HOUR).toISOString(),
          },
        ],
      }),
      400,
      /^schedules\.0\.end: Error: invalid period$/,
    ],
    ['an unknown workflow', () => ({ workflow_uuid: 'no-such-workflow' }), 400, /^workflow_uuid: /],
    [
      "another organization's workflow",
      () => ({ workflow_uuid: workflows.get(w.b) }),
      400,
      /^workflow_uuid: /,
    ],
    [
      "another organization's group",
      () => ({ group: w.b.group.id }),
      400,
      /^group: .* not one of your groups/,
    ],
    ['a group the caller is not in', () => ({ group: foreignGroup.id }), 400, /^group: /],
    [
      'resources over the group quota',
      () => ({ sandbox_resources: { n2: { cpu: 4000, memory: 512, disk: 100 } } }),
      422,
      /^sandbox_resources\.n2\.cpu: 4000 is over the quota of group .* \(1000 millicores\)/,
    ],
    [
      'resources of no sandbox',
      () => ({ sandbox_resources: { ghost: { cpu: 1, memory: 1, disk: 1 } } }),
      400,
      /^sandbox_resources\.ghost: /,
    ],
    [
      'an empty variable value',
      () => ({ session_variables: { n1: [{ name: 'A', value: '' }] } }),
      400,
      /^session_variables\.n1\.0\.value: /,
    ],
    [
      'an event URL that is not http',
      () => ({ events: [{ url: 'ftp://example.org/x', expect: '200' }] }),
      400,
      /^events\.0\.url: /,
    ],
    [
      'a cluster preference without a cluster',
      () => ({ cluster_pref: [], has_cluster_pref: true }),
      400,
      /^cluster_pref: /,
    ],
  ];
  it.each(BAD)('refuses %s, naming the field, and writes nothing', async (_name, change, status, message) => {
    const before = await count(w.a, 'sessions');
    const res = await call(w.a.target, 'post', '/session', body(w.a, change(w.a)));
    expect(res.status).toBe(status);
    expect(res.body.error.message).toMatch(message);
    const instance = await call(w.a.target, 'post', '/session/instance', body(w.a, change(w.a)));
    expect(instance.status).toBe(status);
    expect(await count(w.a, 'sessions')).toBe(before);
  });

  /** role → [sees it in GET /session, GET /schedule/:id, PUT, POST /session/fast, DELETE]. */
  const ROLES: [string, (t: Tenant) => { id: string }, boolean, number, number, number, number][] = [
    ['its owner', (t) => t.target, true, 200, 200, 201, 200],
    ['a member of its group', (t) => t.user, true, 200, 403, 201, 403],
    ['an admin of its group', (t) => t.groupAdmin, true, 200, 403, 201, 403],
    ['an organization admin outside the group', (t) => t.orgAdmin, false, 404, 404, 404, 404],
    ['the super admin outside the group', () => w.superAdmin, false, 404, 404, 404, 404],
  ];
  it.each(ROLES)('%s', async (_role, who, sees, get, put, fast, del) => {
    const id = await sessionOf();
    const user = who(w.a);
    const list = await call(user, 'get', '/session');
    expect(list.status).toBe(200);
    expect(list.body.result.some((s: { uuid: string }) => s.uuid === id)).toBe(sees);
    expect((await call(user, 'get', `/schedule/${id}`)).status).toBe(get);
    expect((await call(user, 'put', `/session/${id}`, body(w.a, { name: 'x' }))).status).toBe(put);
    const started = await call(user, 'post', '/session/fast', {
      uuid: id,
      workflow_uuid: workflows.get(w.a),
    });
    expect(started.status).toBe(fast);
    expect((await call(user, 'delete', `/session?sessions=${id}`)).status).toBe(del);
  });

  it("hides another organization's sessions and runs (404) and changes nothing", async () => {
    const id = await sessionOf(w.b);
    const run = await runIn(w.b, id, 'RUNNING');
    const rv = (await runCr(w.b, run)).metadata.resourceVersion;
    for (const [method, path, b] of [
      ['get', `/schedule/${id}`],
      ['get', `/event/${id}`],
      ['get', `/schedule/${id}/run`],
      ['put', `/session/${id}`, body(w.b)],
      ['post', `/session/${id}/clone`],
      ['post', `/session/${id}/webhook`],
      ['delete', `/session?sessions=${id}`],
      ['get', `/run/${run}`],
      ['put', `/run/${run}`, { action: 'stop' }],
    ] as [Method, string, object?][]) {
      const res = await call(w.a.target, method, path, b);
      expect([method, path, res.status]).toEqual([method, path, 404]);
    }
    expect((await runCr(w.b, run)).metadata.resourceVersion).toBe(rv);
    expect((await sessionCr(w.b, id)).spec.name).toBe('nightly');
  });
});

describe('start now and runs', () => {
  it('POST /session/instance saves and starts a run; the run reads in spec 2 §3 shape', async () => {
    const started = await call(w.a.target, 'post', '/session/instance', body());
    expect(started.status).toBe(201);
    const { schedule_id, run_uuid } = started.body.result;
    const cr = await runCr(w.a, run_uuid);
    expect(cr.spec).toMatchObject({
      session: schedule_id,
      workflow: workflows.get(w.a),
      trigger: 'manual',
      owner: w.a.target.id,
    });
    expect(cr.metadata.labels).toMatchObject({
      'sandflow.io/session': schedule_id,
      'sandflow.io/group': w.a.group.id,
    });

    const run = await call(w.a.user, 'get', `/run/${run_uuid}`);
    expect(run.status).toBe(200);
    expect(run.body.result).toMatchObject({
      uuid: run_uuid,
      session: schedule_id,
      status: 'WAITING',
      start: '0001-01-01T00:00:00Z',
      stop: '0001-01-01T00:00:00Z',
      group: w.a.group.id,
      sandbox_statuses: [],
      outputs: [],
    });
    expect(run.body.result.workflow.nodes.map((n: { name: string }) => n.name)).toEqual(['first', 'second']);

    // Start Now again with the uuid updates that session and starts a second run.
    const again = await call(w.a.target, 'post', '/session/instance', {
      ...body(),
      uuid: schedule_id,
      name: 'renamed',
    });
    expect(again.body.result.schedule_id).toBe(schedule_id);
    const list = await call(w.a.user, 'get', `/schedule/${schedule_id}/run`);
    expect(list.body.result.map((r: { uuid: string }) => r.uuid)).toEqual([
      again.body.result.run_uuid,
      run_uuid,
    ]);
    expect(list.body.result[0]).toMatchObject({ status: 'WAITING', start: '0001-01-01T00:00:00Z' });
    expect((await call(w.a.user, 'get', `/event/${schedule_id}/run`)).body.result).toHaveLength(2);

    const wrong = await call(w.a.target, 'post', '/session/fast', {
      uuid: schedule_id,
      workflow_uuid: 'other',
    });
    expect(wrong.status).toBe(400);
  });

  const PHASES: Phase[] = ['WAITING', 'QUEUED', 'INIT', 'RUNNING', 'PAUSED', 'COMPLETED', 'ERROR', 'STOPPED'];
  const ALLOWED: Record<string, Phase[]> = {
    pause: ['RUNNING', 'INIT'],
    resume: ['PAUSED'],
    stop: ['RUNNING', 'PAUSED', 'INIT', 'WAITING', 'QUEUED'],
    retry: ['ERROR'],
    restart: PHASES,
    restart_from: ['COMPLETED', 'ERROR', 'STOPPED'],
  };
  /**
   * What the spec asks of the operator after each action (tests/runs/actions.test.ts), and who asked
   * it (spec.requestedBy, which the operator's history entry credits).
   */
  const ASKED: Record<string, (r: Run) => unknown> = {
    pause: (r) => r.spec.suspend && r.spec.requestedBy?.suspend === w.a.user.id,
    resume: (r) => r.spec.suspend === false && r.spec.requestedBy?.suspend === w.a.user.id,
    stop: (r) => r.spec.stop && r.spec.requestedBy?.stop === w.a.user.id,
    retry: (r) => r.spec.retry === 1 && r.spec.requestedBy?.retry === w.a.user.id,
    restart: (r) =>
      r.spec.restart === 1 && r.spec.stop === false && r.spec.requestedBy?.restart === w.a.user.id,
    restart_from: (r) =>
      r.spec.restartFrom?.sandbox === 'second' &&
      r.spec.restartFrom.request === 1 &&
      r.spec.requestedBy?.restartFrom === w.a.user.id,
  };
  const CASES = Object.keys(ALLOWED).flatMap((action) => PHASES.map((phase) => [action, phase] as const));

  it.each(CASES)('PUT /run %s while %s', async (action, phase) => {
    const session = await sessionOf();
    const run = await runIn(w.a, session, phase);
    const rv = (await runCr(w.a, run)).metadata.resourceVersion;
    const res = await call(w.a.user, 'put', `/run/${run}`, {
      action,
      ...(action === 'restart_from' ? { sandbox: 'n2' } : {}),
    });
    if (ALLOWED[action]!.includes(phase)) {
      expect(res.status).toBe(200);
      expect(ASKED[action]!(await runCr(w.a, run))).toBe(true);
    } else {
      expect(res.status).toBe(409);
      expect(res.body.error.message).toContain(`while the run is ${phase}`);
      expect((await runCr(w.a, run)).metadata.resourceVersion).toBe(rv);
    }
  });

  it("names who did what by username (one statement for the whole history) and the run's group by name", async () => {
    const session = await sessionOf();
    const run = await runIn(w.a, session, 'ERROR'); // started (owned) by the target
    const retried = await call(w.a.user, 'put', `/run/${run}`, { action: 'retry' });
    expect(retried.status).toBe(200);
    const cr = await runCr(w.a, run);
    expect(cr.spec).toMatchObject({ owner: w.a.target.id, requestedBy: { retry: w.a.user.id } });
    // The history the operator writes: user ids, sandboxes, the platform's own entries.
    const gone = '00000000-0000-4000-8000-00000000dead';
    const at = (s: number) => new Date(Date.UTC(2026, 10, 24, 8, 0, s)).toISOString();
    const history = [
      { username: w.a.target.id, action: 'created', time: at(1) },
      { action: 'ERROR', time: at(2) },
      { username: w.a.user.id, action: 'retry', time: at(3) },
      { username: gone, action: 'pause', time: at(4) },
      { username: 'kubectl-admin', action: 'resume', time: at(5) },
    ];
    await custom.replaceNamespacedCustomObjectStatus({
      ...RUNS,
      namespace: groupNs(w.a),
      name: run,
      body: {
        ...cr,
        status: {
          ...cr.status,
          history,
          sandboxStatuses: [
            { id: 'n1', name: 'first', history: [{ sandbox: 'first', action: 'RUNNING', time: at(6) }] },
            { id: 'n2', name: 'second', history: [{ username: w.a.user.id, action: 'skip', time: at(7) }] },
          ],
        },
      },
    });
    const services = servicesFor(h.deps);
    await until(() => services.resources!.runs.get(groupNs(w.a), run)?.status?.history?.length === 5);

    const users: string[] = [];
    const count = (q: { sql: string }) => void (/\bfrom "users"/.test(q.sql) && users.push(q.sql));
    h.db.on('query', count);
    const got = await call(w.a.user, 'get', `/run/${run}`);
    h.db.removeListener('query', count);
    expect(got.status).toBe(200);
    const who = (entries: { username: string; sandbox: string; action: string }[]) =>
      entries.map((e) => [e.username || e.sandbox, e.action]);
    expect(who(got.body.result.history)).toEqual([
      [w.a.target.email, 'created'],
      ['', 'ERROR'],
      [w.a.user.email, 'retry'],
      [gone, 'pause'], // a user that is gone reads as its id
      ['kubectl-admin', 'resume'], // not a user id: as written
    ]);
    expect(got.body.result.sandbox_statuses.map((s: { history: [] }) => who(s.history))).toEqual([
      [['first', 'RUNNING']],
      [[w.a.user.email, 'skip']],
    ]);
    expect(users).toHaveLength(1);
    expect(got.body.result).toMatchObject({ group: w.a.group.id, group_name: w.a.group.name });

    for (const type of ['schedule', 'event']) {
      const list = await call(w.a.user, 'get', `/${type}/${session}/run`);
      expect(list.body.result).toEqual([
        expect.objectContaining({ uuid: run, group: w.a.group.id, group_name: w.a.group.name }),
      ]);
    }
  });

  it('restart_from names a sandbox of the run; delete removes the run; outsiders of the group get 404', async () => {
    const session = await sessionOf();
    const run = await runIn(w.a, session, 'ERROR');
    const none = await call(w.a.user, 'put', `/run/${run}`, { action: 'restart_from', sandbox: 'ghost' });
    expect(none.status).toBe(400);
    expect(none.body.error.message).toMatch(/^sandbox: /);
    expect((await call(w.a.user, 'put', `/run/${run}`, { action: 'restart_from' })).status).toBe(400);
    expect((await call(w.a.orgAdmin, 'put', `/run/${run}`, { action: 'delete' })).status).toBe(404);
    const bad = await call(w.a.user, 'put', `/run/${run}`, { action: 'explode' });
    expect(bad.status).toBe(422);
    const deleted = await call(w.a.user, 'put', `/run/${run}`, { action: 'delete' });
    expect(deleted.status).toBe(200);
    expect(deleted.body.result.status).toBe('DELETED');
    await expect(runCr(w.a, run)).rejects.toThrow();
    expect((await call(w.a.user, 'get', `/run/${run}`)).status).toBe(404);
  });
});

describe('realtime effects and notifications', () => {
  const seen = (run: string) =>
    messages
      .filter((m) => JSON.parse(m.message.message_data).data.run_uuid === run)
      .map((m) => ({ userId: m.userId, ...JSON.parse(m.message.message_data) }));

  it('tells the members of the group how a run moves, whoever wrote the change', async () => {
    const session = await sessionOf(w.a, { notifications: [] });
    const run = await runIn(w.a, session, 'RUNNING');
    const steps: [Phase, string][] = [
      ['PAUSED', 'run.paused'],
      ['RUNNING', 'run.resumed'],
      ['ERROR', 'run.failed'],
      ['RUNNING', 'run.retried'],
      ['STOPPED', 'run.stopped'],
    ];
    await until(() => seen(run).some((m) => m.action === 'run.started'));
    for (const [phase, action] of steps) {
      await setStatus(w.a, run, {
        phase,
        ...(phase === 'RUNNING' ? {} : { stopTime: new Date().toISOString() }),
      });
      await until(() => seen(run).some((m) => m.action === action && m.data.status === phase));
    }
    const receivers = new Set(seen(run).map((m) => m.userId));
    expect(receivers).toEqual(new Set([w.a.target.id, w.a.user.id, w.a.groupAdmin.id]));
    expect(seen(run).find((m) => m.action === 'run.paused')!.data).toMatchObject({
      uuid: session,
      run_uuid: run,
    });
    await call(w.a.user, 'put', `/run/${run}`, { action: 'delete' });
    await until(() => seen(run).some((m) => m.action === 'run.deleted'));
  });

  it('when a run ends, notifies the owner and the group admins and mails the addresses — once', async () => {
    const session = await sessionOf(w.a, { notifications: ['watcher@example.org'], notify_group: true });
    const run = await runIn(w.a, session, 'RUNNING');
    await setStatus(w.a, run, { phase: 'COMPLETED', stopTime: new Date().toISOString() });
    const rows = await until(async () => {
      const found = await h
        .db('notifications')
        .whereRaw(`data->>'run_uuid' = ?`, [run])
        .select('user_id', 'title', 'data');
      return found.length >= 2 ? found : undefined;
    });
    expect(new Set(rows.map((r) => r.user_id))).toEqual(new Set([w.a.target.id, w.a.groupAdmin.id]));
    expect(rows[0]).toMatchObject({
      title: 'Run completed',
      data: { action: 'run.completed', uuid: session, run_uuid: run },
    });
    const mail = await until(() =>
      h.db('outbox').where({ to: 'watcher@example.org' }).whereLike('text', `%${run}%`).first(),
    );
    expect(mail.subject).toBe('Run completed: nightly');
    await until(async () =>
      (await runCr(w.a, run)).metadata.annotations?.['sandflow.io/notified']?.startsWith('COMPLETED'),
    );
    // Another status write of the same end announces nothing more.
    await setStatus(w.a, run, { phase: 'COMPLETED', message: 'billing written' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    // PostgreSQL counts as bigint, which node-postgres hands back as a string.
    const notified = await h
      .db('notifications')
      .whereRaw(`data->>'run_uuid' = ?`, [run])
      .count('* as n')
      .first();
    expect(Number(notified!.n)).toBe(2);
  });
});

describe('webhook', () => {
  it('starts a run on POST with the secret shown once; a rotated or wrong secret is a 404', async () => {
    const session = await sessionOf();
    const made = await call(w.a.target, 'post', `/session/${session}/webhook`);
    expect(made.status).toBe(200);
    const { secret, path } = made.body.result;
    expect(path).toBe(`/api/v0/hooks/session/${session}/${secret}`);
    const cr = await sessionCr(w.a, session);
    expect(cr.spec.webhook!.secretHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(cr)).not.toContain(secret);
    expect((await call(w.a.target, 'get', `/schedule/${session}`)).body.result.webhook).toBe(true);
    expect((await call(w.a.user, 'post', `/session/${session}/webhook`)).status).toBe(403);

    const before = await count(w.a, 'runs');
    const hooked = await call(null, 'post', `/hooks/session/${session}/${secret}`);
    expect(hooked.status).toBe(201);
    expect((await runCr(w.a, hooked.body.result.run_uuid)).spec).toMatchObject({ session, trigger: 'event' });
    expect((await call(null, 'post', `/hooks/session/${session}/${secret}x`)).status).toBe(404);
    expect((await call(null, 'post', `/hooks/session/no-such-session/${secret}`)).status).toBe(404);

    const rotated = await call(w.a.target, 'post', `/session/${session}/webhook`);
    expect((await call(null, 'post', `/hooks/session/${session}/${secret}`)).status).toBe(404);
    expect((await call(null, 'post', `/hooks/session/${session}/${rotated.body.result.secret}`)).status).toBe(
      201,
    );
    expect(await count(w.a, 'runs')).toBe(before + 2);

    expect((await call(w.a.target, 'delete', `/session/${session}/webhook`)).status).toBe(200);
    expect((await call(null, 'post', `/hooks/session/${session}/${rotated.body.result.secret}`)).status).toBe(
      404,
    );
  });
});

describe('writes over the operator', () => {
  it("a save read before a status write still lands; one read before someone else's spec change is a 409", async () => {
    const id = await sessionOf();
    const store = servicesFor(h.deps).resources!.sessions;
    const stale = store.get(groupNs(w.a), id)!;
    const live = await sessionCr(w.a, id);
    await custom.replaceNamespacedCustomObjectStatus({
      ...SESSIONS,
      namespace: groupNs(w.a),
      name: id,
      body: { ...live, status: { phase: 'Active', runCount: 0 } },
    });
    await until(() => store.get(groupNs(w.a), id)?.status?.phase === 'Active');
    const saved = await replaceOverStatus(
      store,
      stale,
      (c) => ({ ...c, spec: { ...c.spec, name: 'over status' } }),
      '',
    );
    expect(saved.spec.name).toBe('over status');
    expect(saved.status?.phase).toBe('Active');

    const before = store.get(groupNs(w.a), id)!;
    const fresh = await sessionCr(w.a, id);
    await custom.replaceNamespacedCustomObject({
      ...SESSIONS,
      namespace: groupNs(w.a),
      name: id,
      body: { ...fresh, spec: { ...fresh.spec, attempts: 5 } },
    });
    await expect(
      replaceOverStatus(store, before, (c) => ({ ...c, spec: { ...c.spec, name: 'lost update' } }), ''),
    ).rejects.toThrow(/changed by someone else/);
    expect((await sessionCr(w.a, id)).spec).toMatchObject({ name: 'over status', attempts: 5 });
  });
});
