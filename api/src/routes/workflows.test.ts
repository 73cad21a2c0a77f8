import { CustomObjectsApi } from '@kubernetes/client-node';
import type { Workflow, WorkflowSpec } from '@sandflow/crds';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTHORIZATION, ROLES, type Role } from '../authorization.js';
import { startTestKube, type TestKube } from '../resources/test-kube.js';
import { servicesFor } from '../services/index.js';
import { createHarness, type Harness } from '../test-support/harness.js';
import { createWorld, type Tenant, type World } from '../test-support/world.js';

const WF = { group: 'sandflow.io', version: 'v1alpha1', plural: 'workflows' };

let kube: TestKube;
let h: Harness;
let w: World;
let custom: CustomObjectsApi;
const tokens = new Map<string, string>();
/** Sandboxes every member of the organization may use, per tenant: [first, second]. */
const usable = new Map<Tenant, [string, string]>();

const callerOf = (role: Role | 'owner', t: Tenant = w.a) =>
  ({
    admin: w.superAdmin,
    organization_admin: t.orgAdmin,
    group_admin: t.groupAdmin,
    user: t.user,
    owner: t.target,
  })[role];

async function as(user: { id: string }, org = w.a.org.id) {
  const key = `${user.id}:${org}`;
  if (!tokens.has(key)) tokens.set(key, await h.tokenFor(user.id, org));
  return `Bearer ${tokens.get(key)}`;
}

type Method = 'get' | 'post' | 'put' | 'delete';
async function call(user: { id: string }, method: Method, path: string, body?: object, org?: string) {
  const req = h.request[method](`/api/v0${path}`).set('Authorization', await as(user, org));
  return body ? req.send(body) : req;
}

const namespaceOf = (t: Tenant) => `sf-${t.org.slug}`;
const crOf = (t: Tenant, id: string) =>
  custom.getNamespacedCustomObject({ ...WF, namespace: namespaceOf(t), name: id }) as Promise<Workflow>;
const crCount = async (t: Tenant) =>
  (
    (await custom.listNamespacedCustomObject({ ...WF, namespace: namespaceOf(t) })) as {
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

/** The editor's body: ingest → (multi) process → switch → success publish / fail alert. */
function body(t: Tenant = w.a, overrides: Record<string, unknown> = {}) {
  const [first, second] = usable.get(t)!;
  return {
    name: 'nightly pipeline',
    version: '1.0.0',
    nodes: [
      { id: 'n1', name: 'ingest', x: 100, y: 200, src_id: first, variables: [{ name: 'A', value: '1' }] },
      { id: 'n2', name: 'process', x: 320, y: 200, src_id: second },
      { id: 'n3', name: 'publish', x: 760, y: 120, src_id: first, continueOnFail: true },
      { id: 'n4', name: 'alert', x: 760, y: 280, src_id: first },
    ],
    switches: [{ id: 's1', x: 540, y: 200 }],
    edges: [
      { id: 'e0', from: 'start', to: 'n1', type: 'start', condition: 'starting' },
      {
        id: 'e1',
        from: 'n1',
        to: 'n2',
        type: 'multi',
        condition: 'primary',
        instanceType: 'line',
        instanceInput: 'items.txt',
        instanceNumber: 2,
      },
      { id: 'e2', from: 'n2', to: 's1', type: 'switchInput' },
      { id: 'e3', from: 's1', to: 'n3', type: 'switchOutput', switchCondition: 'success' },
      { id: 'e4', from: 's1', to: 'n4', type: 'switchOutput', switchCondition: 'fail' },
    ],
    ...overrides,
  };
}

async function workflowOf(t: Tenant, overrides: Record<string, unknown> = {}): Promise<string> {
  const res = await call(t.target, 'post', '/workflow', body(t, overrides), t.org.id);
  expect(res.status).toBe(201);
  return res.body.result.uuid as string;
}

beforeAll(async () => {
  kube = await startTestKube();
  h = await createHarness({ kube: kube.kubeConfig });
  w = await createWorld(h.db);
  const services = servicesFor(h.deps);
  for (const t of [w.a, w.b]) await services.kube.syncOrganization(t.org);
  await services.resources!.synced;
  custom = kube.kubeConfig.makeApiClient(CustomObjectsApi);
  for (const t of [w.a, w.b]) {
    const ids: string[] = [];
    for (const name of ['shared_box', 'other_box']) {
      const res = await call(
        t.target,
        'post',
        '/sandbox',
        {
          name,
          entrypoint: '/run.sh',
          permissions: { _public: { read: true, execute: true } },
        },
        t.org.id,
      );
      expect(res.status).toBe(201);
      ids.push(res.body.result.uuid as string);
    }
    usable.set(t, ids as [string, string]);
  }
}, 60_000);

afterAll(async () => {
  await h?.close();
  await kube?.close();
});

describe('workflow routes', () => {
  it('creates, reads, lists, renames, sets variables and visibility, updates, clones and deletes', async () => {
    const created = await call(w.a.target, 'post', '/workflow', body());
    expect(created.status).toBe(201);
    const wf = created.body.result;
    const [first, second] = usable.get(w.a)!;
    expect(wf).toMatchObject({
      name: 'nightly pipeline',
      owner: w.a.target.id,
      visibility: { type: 'private', groups: [] },
      valid: null, // the operator does not run here: pending, never guessed
      user_access: { read: true, write: true, execute: true, owner: true },
    });
    expect(wf.nodes[0]).toEqual({
      id: 'n1',
      name: 'ingest',
      x: 100,
      y: 200,
      src_id: first,
      owner: w.a.target.id,
      continueOnFail: false,
      variables: [{ name: 'A', value: '1' }],
    });
    expect(wf.sandboxes.find((s: { sandbox_id: string }) => s.sandbox_id === 'n1')).toEqual({
      sandbox_id: 'n1',
      sandbox_name: 'ingest',
      owner: w.a.target.id,
      sandbox_db: first,
      continue_on_fail: false,
      variables: [{ name: 'A', value: '1' }],
      linked_to: [{ destination: 'n2', splitter: true, file: 'items.txt', option: 'line' }],
      conditions: [],
    });
    expect(wf.sandboxes.find((s: { sandbox_id: string }) => s.sandbox_id === 'n2')).toMatchObject({
      sandbox_db: second,
      conditions: [
        { destination: 'n3', condition: 'success' },
        { destination: 'n4', condition: 'fail' },
      ],
    });
    const cr = await crOf(w.a, wf.uuid);
    expect(cr.metadata.labels).toMatchObject({
      'sandflow.io/organization': w.a.org.id,
      'sandflow.io/owner': w.a.target.id,
    });
    expect(cr.spec.nodes![1]).toEqual({
      id: 'n2',
      name: 'process',
      sandbox: second,
      owner: w.a.target.id,
      x: 320,
      y: 200,
    });

    const list = await call(w.a.target, 'get', '/workflow?mine=true&search=NIGHTLY');
    expect(list.body.result.workflows.map((x: { uuid: string }) => x.uuid)).toContain(wf.uuid);
    const graphs = await call(w.a.target, 'get', '/workflow?graph=true&mine=true');
    expect(graphs.body.result.workflows.find((x: { uuid: string }) => x.uuid === wf.uuid)).toMatchObject({
      tags: [],
      valid: null,
      switches: [{ id: 's1', x: 540, y: 200 }],
    });

    const renamed = await call(w.a.target, 'put', `/workflow/${wf.uuid}/name`, { name: 'renamed' });
    expect(renamed.body.result.name).toBe('renamed');
    const vars = await call(w.a.target, 'put', `/workflow/${wf.uuid}/variables/process`, {
      variables: [{ name: 'BATCH', value: '5' }],
    });
    expect(vars.body.result.sandboxes[1].variables).toEqual([{ name: 'BATCH', value: '5' }]);
    const visibility = await call(w.a.target, 'put', `/workflow/${wf.uuid}/visibility`, {
      type: 'group',
      groups: [w.a.group.id],
    });
    expect(visibility.body.result.visibility).toEqual({ type: 'group', groups: [w.a.group.id] });
    const updated = await call(
      w.a.target,
      'put',
      `/workflow/${wf.uuid}`,
      body(w.a, { name: 'renamed', version: '2.0' }),
    );
    expect(updated.status).toBe(200);
    expect(updated.body.result).toMatchObject({ version: '2.0', visibility: { type: 'group' } });
    // The body carried no variables for `process`: the whole graph is what the editor sent.
    expect(updated.body.result.sandboxes[1].variables).toEqual([]);

    const clone = await call(w.a.user, 'post', `/workflow/${wf.uuid}/clone`);
    expect(clone.status).toBe(201);
    expect(clone.body.result).toMatchObject({
      name: 'renamed_copy',
      owner: w.a.user.id,
      visibility: { type: 'private' },
    });

    const removed = await call(w.a.target, 'delete', '/workflow', { workflows: [wf.uuid] });
    expect(removed.body.result).toEqual({ workflows: [wf.uuid] });
    expect((await call(w.a.target, 'get', `/workflow/${wf.uuid}`)).status).toBe(404);
    const events = await h
      .db('events')
      .where({ kind: 'workflows' })
      .whereIn('subject', ['nightly pipeline', 'renamed'])
      .orderBy('id')
      .pluck('action');
    expect(events).toEqual(['create', 'rename', 'variables', 'visibility', 'update', 'remove']);
  });
});

type Statuses = [number, number, number, number];
interface Case {
  request(id: string): { method: Method; path: string; body?: object };
  /** By ROLES (admin, organization_admin, group_admin, user) on a workflow shared with the group. */
  own: Statuses;
  owner: number;
}
const HIDDEN_FROM_OTHERS: Statuses = [404, 404, 403, 403];

const MATRIX: Record<string, Case> = {
  'GET /workflow': {
    request: () => ({ method: 'get', path: '/workflow' }),
    own: [200, 200, 200, 200],
    owner: 200,
  },
  'POST /workflow': {
    request: () => ({ method: 'post', path: '/workflow', body: body() }),
    own: [201, 201, 201, 201],
    owner: 201,
  },
  'DELETE /workflow': {
    request: (id) => ({ method: 'delete', path: '/workflow', body: { workflows: [id] } }),
    own: HIDDEN_FROM_OTHERS,
    owner: 200,
  },
  'GET /workflow/:uuid': {
    request: (id) => ({ method: 'get', path: `/workflow/${id}` }),
    own: [404, 404, 200, 200],
    owner: 200,
  },
  'PUT /workflow/:uuid': {
    request: (id) => ({ method: 'put', path: `/workflow/${id}`, body: body(w.a, { version: '1.1' }) }),
    own: HIDDEN_FROM_OTHERS,
    owner: 200,
  },
  'POST /workflow/:uuid/clone': {
    request: (id) => ({ method: 'post', path: `/workflow/${id}/clone` }),
    own: [404, 404, 201, 201],
    owner: 201,
  },
  'PUT /workflow/:uuid/name': {
    request: (id) => ({ method: 'put', path: `/workflow/${id}/name`, body: { name: 'other name' } }),
    own: HIDDEN_FROM_OTHERS,
    owner: 200,
  },
  'PUT /workflow/:uuid/variables/:sandbox': {
    request: (id) => ({
      method: 'put',
      path: `/workflow/${id}/variables/n2`,
      body: { variables: [{ name: 'X', value: 'y' }] },
    }),
    own: HIDDEN_FROM_OTHERS,
    owner: 200,
  },
  'PUT /workflow/:uuid/visibility': {
    request: (id) => ({ method: 'put', path: `/workflow/${id}/visibility`, body: { type: 'public' } }),
    own: HIDDEN_FROM_OTHERS,
    owner: 200,
  },
};

/** A workflow of a.target that a.group sees. */
const shared = () => workflowOf(w.a, { visibility: { type: 'group', groups: [w.a.group.id] } });

describe('authorization of the workflow routes', () => {
  it('covers every workflow route of the authorization table', () => {
    const routes = Object.keys(AUTHORIZATION).filter((k) => / \/workflow(\/|$)/.test(k));
    expect(Object.keys(MATRIX).sort()).toEqual(routes.sort());
  });

  const cases = Object.entries(MATRIX).flatMap(([key, c]) => [
    ...ROLES.map((role, i) => ({ key, who: role as Role | 'owner', expected: c.own[i]!, c })),
    { key, who: 'owner' as const, expected: c.owner, c },
  ]);
  it.each(cases)('$key as $who → $expected', async ({ who, expected, c }) => {
    const id = await shared();
    const { method, path, body: payload } = c.request(id);
    const before = await h.db('events').count('* as n').first();
    const res = await call(callerOf(who), method, path, payload);
    expect({ status: res.status, error: res.body?.error }).toMatchObject({ status: expected });
    const after = await h.db('events').count('* as n').first();
    // A refused call leaves no audit event; a successful change leaves one.
    const changed = method !== 'get' && res.status < 300;
    expect(Number(after!.n)).toBe(Number(before!.n) + (changed ? 1 : 0));
  });

  const objectRoutes = Object.keys(MATRIX).filter((k) => k.includes(':uuid') || k.startsWith('DELETE'));
  it.each(objectRoutes.flatMap((key) => ROLES.map((role) => ({ key, role }))))(
    "$key as $role of the other organization on organization A's workflow → 404",
    async ({ key, role }) => {
      const id = await shared();
      const { method, path, body: payload } = MATRIX[key]!.request(id);
      const caller = role === 'admin' ? w.superAdmin : callerOf(role, w.b);
      const res = await call(caller, method, path, payload, w.b.org.id);
      expect(res.status).toBe(404);
    },
  );

  it.each(Object.keys(MATRIX))('%s without a session → 401', async (key) => {
    const { method, path, body: payload } = MATRIX[key]!.request('some-workflow');
    const req = h.request[method](`/api/v0${path}`);
    expect((await (payload ? req.send(payload) : req)).status).toBe(401);
  });

  it('lets every member see and clone a public workflow, but not change it', async () => {
    const id = await workflowOf(w.a, { visibility: { type: 'public' } });
    expect((await call(w.a.orgAdmin, 'get', `/workflow/${id}`)).body.result.user_access).toEqual({
      read: true,
      write: false,
      execute: false,
      owner: false,
    });
    expect((await call(w.a.orgAdmin, 'post', `/workflow/${id}/clone`)).status).toBe(201);
    expect((await call(w.a.orgAdmin, 'put', `/workflow/${id}/name`, { name: 'x' })).status).toBe(403);
  });
});

const nodes = (t: Tenant = w.a) => body(t).nodes;
describe('bad input: a 4xx naming the problem, nothing saved', () => {
  const foreign = () => usable.get(w.b)![0];
  it.each([
    ['an empty name', () => ({ name: '' }), 400, 'name: Please, enter a valid workflow name'],
    [
      'an empty variable value',
      () => ({ nodes: [{ ...nodes()[0], variables: [{ name: 'A', value: '' }] }], edges: [], switches: [] }),
      400,
      'nodes.n1: You have empty fields on environment variables',
    ],
    [
      'duplicate sandbox names',
      () => ({ nodes: nodes().map((n) => ({ ...n, name: 'same' })) }),
      400,
      'Find two or more sandbox with the same name',
    ],
    [
      'a self edge',
      () => ({ edges: [...body().edges, { id: 'e9', from: 'n3', to: 'n3', type: 'single' }] }),
      400,
      'edges.e9: Source and destination are the same',
    ],
    [
      'a cycle',
      () => ({
        edges: [
          ...body().edges,
          { id: 'e8', from: 'n3', to: 'n4', type: 'single' },
          { id: 'e9', from: 'n4', to: 'n3', type: 'single' },
        ],
      }),
      400,
      'edges.e9: The current edge would create a cycle in the workflow',
    ],
    [
      'a dangling edge end',
      () => ({ edges: [...body().edges, { id: 'e9', from: 'n3', to: 'nowhere', type: 'single' }] }),
      400,
      'edges.e9: The edge refers to a missing sandbox or switch',
    ],
    [
      'an unknown sandbox',
      () => ({ nodes: [{ ...nodes()[0], src_id: 'no-such-sandbox' }], edges: [], switches: [] }),
      400,
      'nodes.n1: unknown sandbox no-such-sandbox',
    ],
    [
      "another organization's sandbox",
      () => ({ nodes: [{ ...nodes()[0], src_id: foreign() }], edges: [], switches: [] }),
      400,
      'unknown sandbox ',
    ],
    [
      'no sandbox at all',
      () => ({ nodes: [], edges: [], switches: [] }),
      400,
      'The workflow has no sandboxes',
    ],
    [
      'a node without its sandbox',
      () => ({ nodes: [{ ...nodes()[0], src_id: '' }], edges: [], switches: [] }),
      400,
      'This sandbox has no attributes',
    ],
    [
      'two items with one id',
      () => ({ switches: [{ id: 'n1', x: 0, y: 0 }] }),
      400,
      'nodes.n1: two items of the graph have this id',
    ],
    [
      'an edge into the start',
      () => ({ edges: [{ id: 'e9', from: 'n1', to: 'start' }] }),
      400,
      'No edge can enter',
    ],
    ['a bad version', () => ({ version: '-1' }), 400, 'version: Invalid workflow version format'],
    ['an unknown tag', () => ({ tags: ['never-made'] }), 400, 'tags: unknown tag never-made'],
    [
      "a group that is not the caller's",
      () => ({ visibility: { type: 'group', groups: [w.b.group.id] } }),
      400,
      'is not one of your groups',
    ],
    ['a node name with #', () => ({ nodes: [{ ...nodes()[0], name: 'a#b' }] }), 422, 'nodes.0.name'],
    [
      '10,000 nodes',
      () => ({
        nodes: Array.from({ length: 10_000 }, (_, i) => ({ ...nodes()[0], id: `n${i}`, name: `s${i}` })),
        edges: [],
        switches: [],
      }),
      422,
      'nodes: at most 5000 nodes',
    ],
    ['an unknown field', () => ({ color: 'red' }), 422, 'color'],
  ] as const)('POST /workflow with %s → %i', async (_, overrides, status, message) => {
    const before = await crCount(w.a);
    const res = await call(w.a.target, 'post', '/workflow', body(w.a, overrides()));
    expect(res.status).toBe(status);
    expect(res.body.error.message).toContain(message);
    if (message === 'unknown sandbox ') {
      expect(res.body.error.message).toBe(`nodes.n1: unknown sandbox ${foreign()}`);
    }
    expect(await crCount(w.a)).toBe(before);
  });

  it('refuses a PUT with a cycle and leaves the CR as it was', async () => {
    const id = await workflowOf(w.a);
    const before = await crOf(w.a, id);
    const res = await call(
      w.a.target,
      'put',
      `/workflow/${id}`,
      body(w.a, { edges: [...body().edges, { id: 'back', from: 'n2', to: 'n1', type: 'single' }] }),
    );
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('edges.back: The current edge would create a cycle in the workflow');
    expect((await crOf(w.a, id)).metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  });

  it.each([
    ['put', 'name', { name: '' }, 400, 'name: Please, enter a valid workflow name'],
    [
      'put',
      'variables/n1',
      { variables: [{ name: 'A', value: '' }] },
      400,
      "variables.0.value: Can't save with empty values.",
    ],
    [
      'put',
      'variables/n1',
      { variables: [{ name: '', value: 'x' }] },
      400,
      "variables.0.name: Can't save with empty values.",
    ],
    ['put', 'variables/nobody', { variables: [] }, 404, 'Sandbox nobody of the workflow not found'],
    ['put', 'visibility', { type: 'secret' }, 422, 'type'],
  ] as const)('%s /workflow/:uuid/%s %j → %i', async (method, tail, payload, status, message) => {
    const id = await workflowOf(w.a);
    const res = await call(w.a.target, method, `/workflow/${id}/${tail}`, payload);
    expect(res.status).toBe(status);
    expect(res.body.error.message).toContain(message);
  });

  it.each([
    ['/workflow?size=20', 'size'],
    ['/workflow?visibility=secret', 'visibility'],
    ['/workflow?tag=unknown', 'tag'],
    ['/workflow/Not_An_Id!', 'uuid'],
  ])('GET %s → 400 naming %s', async (path, message) => {
    const res = await call(w.a.user, 'get', path);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain(message);
  });
});

describe('paging, sorting, search and filters', () => {
  it('pages on the server, sorts by name, searches uuid, date and tag, filters by visibility and tag', async () => {
    const t = w.b;
    await h.db('tags').insert({ user_id: t.target.id, label: 'nightly', color: '#ff0000' });
    const ids: Record<string, string> = {};
    for (const [name, extra] of [
      ['charlie', { tags: ['nightly'] }],
      ['alpha', { visibility: { type: 'public' } }],
      ['Bravo', {}],
    ] as const)
      ids[name] = await workflowOf(t, { name, ...extra });
    const get = async (query: string) =>
      (await call(t.target, 'get', `/workflow?${query}`, undefined, t.org.id)).body.result;
    const names = (page: { workflows: { name: string }[] }) => page.workflows.map((x) => x.name);
    expect(names(await get('mine=true'))).toEqual(['alpha', 'Bravo', 'charlie']);
    expect(names(await get('mine=true&order=desc&size=15'))).toEqual(['charlie', 'Bravo', 'alpha']);
    expect(await get('mine=true&size=15&page=1')).toMatchObject({
      workflows: [],
      total: 3,
      page: 1,
      size: 15,
    });
    expect(names(await get(`search=${ids.alpha!.slice(0, 8).toUpperCase()}`))).toEqual(['alpha']);
    expect(names(await get('search=NIGHT'))).toEqual(['charlie']);
    expect(names(await get('tag=nightly'))).toEqual(['charlie']);
    expect(names(await get('visibility=public'))).toEqual(['alpha']);
    const today = new Date();
    const shown = `${String(today.getUTCDate()).padStart(2, '0')}-${String(today.getUTCMonth() + 1).padStart(2, '0')}-${today.getUTCFullYear()}`;
    expect((await get(`search=${shown}&mine=true`)).total).toBe(3);
    // Another member sees only the public one.
    const other = (await call(t.user, 'get', '/workflow', undefined, t.org.id)).body.result;
    expect(names(other)).toEqual(['alpha']);
  });
});

describe('kubectl and the API meet in the same Workflow objects', () => {
  const [first] = [() => usable.get(w.a)![0]];
  const applied = (): WorkflowSpec => ({
    name: 'gitops flow',
    visibility: { type: 'public' },
    nodes: [
      { id: 'a', name: 'first', sandbox: first() },
      { id: 'b', name: 'second', sandbox: first() },
    ],
    edges: [{ id: 'ab', from: 'a', to: 'b' }],
  });

  /** What `kubectl get -o yaml` then `kubectl apply` of that file do to the object. */
  async function reapply(id: string) {
    const cr = await crOf(w.a, id);
    const { name, namespace, labels, annotations, resourceVersion } = cr.metadata;
    const replaced = (await custom.replaceNamespacedCustomObject({
      ...WF,
      namespace: namespace!,
      name: name!,
      body: {
        apiVersion: cr.apiVersion,
        kind: cr.kind,
        metadata: { name, namespace, labels, annotations, resourceVersion },
        spec: cr.spec,
      },
    })) as Workflow;
    return { before: cr, after: replaced };
  }

  it('serves an object applied with kubectl (DNS name, no positions, no owner) and saves it back so it re-applies unchanged', async () => {
    const namespace = namespaceOf(w.a);
    await custom.createNamespacedCustomObject({
      ...WF,
      namespace,
      body: {
        apiVersion: 'sandflow.io/v1alpha1',
        kind: 'Workflow',
        metadata: { name: 'applied-flow' },
        spec: applied(),
      },
    });
    const served = await until(async () => {
      const res = await call(w.a.user, 'get', '/workflow/applied-flow');
      return res.status === 200 ? res.body.result : undefined;
    });
    expect(served).toMatchObject({
      uuid: 'applied-flow',
      owner: '',
      prettyOwner: '',
      valid: null,
      version: '1.0.0',
    });
    expect(served.nodes.map((n: { x: unknown; y: unknown }) => [n.x, n.y])).toEqual([
      [null, null],
      [null, null],
    ]);
    expect(served.edges).toEqual([{ id: 'ab', from: 'a', to: 'b', type: 'single' }]);
    expect((await call(w.a.user, 'put', '/workflow/applied-flow', served)).status).toBe(403);

    // An organization administrator saves what the editor laid out.
    const laidOut = {
      ...pick(served),
      nodes: served.nodes.map((n: object, i: number) => ({ ...n, x: 100 + 220 * i, y: 150 })),
    };
    const saved = await call(w.a.orgAdmin, 'put', '/workflow/applied-flow', laidOut);
    expect(saved.status).toBe(200);
    const cr = await crOf(w.a, 'applied-flow');
    expect(cr.spec.owner).toBeUndefined();
    expect(cr.spec.nodes![1]).toEqual({
      id: 'b',
      name: 'second',
      sandbox: first(),
      owner: w.a.target.id,
      x: 320,
      y: 150,
    });

    // Re-applying what kubectl reads changes nothing; neither does saving the answer again.
    const { before, after } = await reapply('applied-flow');
    expect(after.metadata.generation).toBe(before.metadata.generation);
    expect(after.spec).toEqual(before.spec);
    const again = await call(w.a.orgAdmin, 'put', '/workflow/applied-flow', pick(saved.body.result));
    expect(again.status).toBe(200);
    expect((await crOf(w.a, 'applied-flow')).metadata.generation).toBe(after.metadata.generation);
  });

  it('keeps a saved workflow stable through GET → PUT and kubectl apply', async () => {
    const id = await workflowOf(w.a, { tags: [] });
    const first = await crOf(w.a, id);
    const answer = (await call(w.a.target, 'get', `/workflow/${id}`)).body.result;
    expect((await call(w.a.target, 'put', `/workflow/${id}`, pick(answer))).status).toBe(200);
    const { before, after } = await reapply(id);
    expect(before.metadata.generation).toBe(first.metadata.generation);
    expect(after.metadata.generation).toBe(first.metadata.generation);
    expect(after.spec).toEqual(first.spec);
  });
});

/** The fields of an answer that a Save sends back. */
function pick(answer: Record<string, unknown>) {
  const { name, version, tags, visibility, nodes: n, switches, edges } = answer;
  return { name, version, tags, visibility, nodes: n, switches, edges };
}
