import { CustomObjectsApi } from '@kubernetes/client-node';
import type { Sandbox, Workflow } from '@sandflow/crds';
import { KINDS, Kube } from '@sandflow/kube';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTHORIZATION, ROLES, type Role } from '../authorization.js';
import { startTestKube, type TestKube } from '../resources/test-kube.js';
import { IN_USE } from '../services/sandboxes.js';
import { servicesFor } from '../services/index.js';
import { createHarness, type Harness } from '../test-support/harness.js';
import { PNG_BYTES, createWorld, type Tenant, type World } from '../test-support/world.js';

const REF = { group: 'sandflow.io', version: 'v1alpha1', plural: 'sandboxes' };
const WF = { group: 'sandflow.io', version: 'v1alpha1', plural: 'workflows' };

let kube: TestKube;
let h: Harness;
let w: World;
let custom: CustomObjectsApi;
const tokens = new Map<string, string>();

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

const form = (overrides: Record<string, unknown> = {}) => ({
  name: 'hello_box',
  version: '1.0.0',
  entrypoint: '/entrypoint.sh',
  description: 'says hello',
  constraints: { cpu: 500, memory: 512, disk: 100 },
  variables: [{ name: 'GREETING', value: 'hi' }],
  ...overrides,
});

/** A sandbox of the target user of tenant t (created through the API). */
async function sandboxOf(t: Tenant, overrides: Record<string, unknown> = {}): Promise<string> {
  const res = await call(t.target, 'post', '/sandbox', form(overrides), t.org.id);
  expect(res.status).toBe(201);
  return res.body.result.uuid as string;
}

/** What `kubectl patch --type merge` does. */
const kubectlPatch = (t: Tenant, id: string, body: object) =>
  new Kube(kube.kubeConfig).patch(KINDS.sandbox, `sf-${t.org.slug}`, id, body);
const crOf = (t: Tenant, id: string) =>
  custom.getNamespacedCustomObject({ ...REF, namespace: `sf-${t.org.slug}`, name: id }) as Promise<Sandbox>;
const crCount = async (t: Tenant) =>
  (
    (await custom.listNamespacedCustomObject({ ...REF, namespace: `sf-${t.org.slug}` })) as {
      items: unknown[];
    }
  ).items.length;

/** Polls (bounded) until `check` holds: the watch brings changes in asynchronously. */
async function until<T>(check: () => Promise<T | undefined | false> | T | undefined | false): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = await check();
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('condition never held');
}

const eventsOf = (subject: string) =>
  h.db('events').where({ kind: 'sandboxes', subject }).orderBy('id').select('action', 'user_id');

beforeAll(async () => {
  kube = await startTestKube();
  h = await createHarness({ kube: kube.kubeConfig });
  w = await createWorld(h.db);
  const services = servicesFor(h.deps);
  for (const t of [w.a, w.b]) await services.kube.syncOrganization(t.org);
  await services.resources!.synced;
  custom = kube.kubeConfig.makeApiClient(CustomObjectsApi);
}, 60_000);

afterAll(async () => {
  await h?.close();
  await kube?.close();
});

describe('sandbox routes', () => {
  it('creates, reads, lists, renames, sets variables, updates, clones and deletes', async () => {
    const created = await call(w.a.target, 'post', '/sandbox', form({ tags: [] }));
    expect(created.status).toBe(201);
    const sandbox = created.body.result;
    expect(sandbox).toMatchObject({
      name: 'hello_box',
      version: '1.0.0',
      author_id: w.a.target.id,
      organization_id: w.a.org.id,
      constraints: { cpu: 500, memory: 512, disk: 100 },
      variables: [{ name: 'GREETING', value: 'hi' }],
      user_access: { read: true, write: true, execute: true, owner: true },
    });
    expect(sandbox.uuid).toMatch(/^[0-9a-f-]{36}$/);
    const cr = await crOf(w.a, sandbox.uuid);
    expect(cr.metadata.labels).toMatchObject({
      'sandflow.io/organization': w.a.org.id,
      'sandflow.io/owner': w.a.target.id,
    });

    expect((await call(w.a.target, 'get', `/sandbox/${sandbox.uuid}`)).body.result.name).toBe('hello_box');
    const list = await call(w.a.target, 'get', '/sandbox?mine=true&search=hello');
    expect(list.body.result.sandboxes.map((s: { uuid: string }) => s.uuid)).toContain(sandbox.uuid);

    const renamed = await call(w.a.target, 'put', `/sandbox/${sandbox.uuid}/name`, { name: 'renamed_box' });
    expect(renamed.status).toBe(200);
    expect((await crOf(w.a, sandbox.uuid)).spec.name).toBe('renamed_box');

    const vars = await call(w.a.target, 'put', `/sandbox/${sandbox.uuid}/variables`, {
      variables: [
        { name: 'A', value: '1' },
        { name: '', value: '' },
      ],
    });
    expect(vars.body.result.variables).toEqual([{ name: 'A', value: '1' }]);

    const updated = await call(w.a.target, 'put', `/sandbox/${sandbox.uuid}`, {
      ...form({ name: 'renamed_box', version: '2.0', constraints: { cpu: 1500, memory: 1024, disk: 200 } }),
      file_avatar: {
        file_name: 'a.png',
        file_size: PNG_BYTES.length,
        file_body: PNG_BYTES.toString('base64'),
      },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.result).toMatchObject({ version: '2.0', constraints: { cpu: 1500 } });
    expect(updated.body.result.update_date > sandbox.update_date).toBe(true);
    const avatar = await call(w.a.target, 'get', `/sandbox/${sandbox.uuid}/avatar`);
    expect(avatar.status).toBe(200);
    expect(avatar.headers['content-type']).toBe('image/png');
    expect(Buffer.compare(avatar.body as Buffer, PNG_BYTES)).toBe(0);

    const clone = await call(w.a.target, 'post', `/sandbox/${sandbox.uuid}/clone`);
    expect(clone.status).toBe(201);
    expect(clone.body.result).toMatchObject({ name: 'renamed_box_copy', version: '2.0' });
    expect(clone.body.result.uuid).not.toBe(sandbox.uuid);

    const removed = await call(w.a.target, 'delete', '/sandbox', {
      sandboxes: [sandbox.uuid, clone.body.result.uuid],
    });
    expect(removed.body.result).toEqual({
      deleted_sandbox: [sandbox.uuid, clone.body.result.uuid],
      workflows: [],
    });
    expect((await call(w.a.target, 'get', `/sandbox/${sandbox.uuid}`)).status).toBe(404);
    expect(await eventsOf('renamed_box')).toEqual(
      ['rename', 'variables', 'update', 'remove'].map((action) => ({ action, user_id: w.a.target.id })),
    );
  });

  it('answers 404 for an avatar the sandbox does not have', async () => {
    const id = await sandboxOf(w.a);
    expect((await call(w.a.target, 'get', `/sandbox/${id}/avatar`)).status).toBe(404);
  });
});

/** A sandbox of a.target shared with a.group (view) and carrying an avatar. */
const shared = () =>
  sandboxOf(w.a, {
    permissions: { [w.a.group.id]: { read: true, write: false, execute: false } },
    file_avatar: { file_name: 'a.png', file_body: PNG_BYTES.toString('base64') },
  });

type Statuses = [number, number, number, number];
interface Case {
  request(id: string): { method: Method; path: string; body?: object };
  /** By ROLES (admin, organization_admin, group_admin, user) on a sandbox shared with the group. */
  own: Statuses;
  owner: number;
}
const HIDDEN_FROM_OTHERS: Statuses = [404, 404, 403, 403];

const MATRIX: Record<string, Case> = {
  'GET /sandbox': {
    request: () => ({ method: 'get', path: '/sandbox' }),
    own: [200, 200, 200, 200],
    owner: 200,
  },
  'POST /sandbox': {
    request: () => ({ method: 'post', path: '/sandbox', body: form() }),
    own: [201, 201, 201, 201],
    owner: 201,
  },
  'DELETE /sandbox': {
    request: (id) => ({ method: 'delete', path: '/sandbox', body: { sandboxes: [id] } }),
    own: HIDDEN_FROM_OTHERS,
    owner: 200,
  },
  'GET /sandbox/:uuid': {
    request: (id) => ({ method: 'get', path: `/sandbox/${id}` }),
    own: [404, 404, 200, 200],
    owner: 200,
  },
  'PUT /sandbox/:uuid': {
    request: (id) => ({ method: 'put', path: `/sandbox/${id}`, body: form({ version: '1.1' }) }),
    own: HIDDEN_FROM_OTHERS,
    owner: 200,
  },
  'POST /sandbox/:uuid/clone': {
    request: (id) => ({ method: 'post', path: `/sandbox/${id}/clone` }),
    own: [404, 404, 201, 201],
    owner: 201,
  },
  'PUT /sandbox/:uuid/variables': {
    request: (id) => ({ method: 'put', path: `/sandbox/${id}/variables`, body: { variables: [] } }),
    own: HIDDEN_FROM_OTHERS,
    owner: 200,
  },
  'PUT /sandbox/:uuid/name': {
    request: (id) => ({ method: 'put', path: `/sandbox/${id}/name`, body: { name: 'other_name' } }),
    own: HIDDEN_FROM_OTHERS,
    owner: 200,
  },
  'GET /sandbox/:uuid/avatar': {
    request: (id) => ({ method: 'get', path: `/sandbox/${id}/avatar` }),
    own: [404, 404, 200, 200],
    owner: 200,
  },
};

describe('authorization of the sandbox routes', () => {
  it('covers every sandbox route of the authorization table', () => {
    const routes = Object.keys(AUTHORIZATION).filter((k) => / \/sandbox(\/|$)/.test(k));
    expect(Object.keys(MATRIX).sort()).toEqual(routes.sort());
  });

  const cases = Object.entries(MATRIX).flatMap(([key, c]) => [
    ...ROLES.map((role, i) => ({ key, who: role as Role | 'owner', expected: c.own[i]!, c })),
    { key, who: 'owner' as const, expected: c.owner, c },
  ]);
  it.each(cases)('$key as $who → $expected', async ({ who, expected, c }) => {
    const id = await shared();
    const { method, path, body } = c.request(id);
    const before = await h.db('events').count('* as n').first();
    const res = await call(callerOf(who), method, path, body);
    expect({ status: res.status, error: res.body?.error }).toMatchObject({ status: expected });
    const after = await h.db('events').count('* as n').first();
    // A refused call leaves no audit event; a successful change leaves one.
    const changed = method !== 'get' && res.status < 300;
    expect(Number(after!.n)).toBe(Number(before!.n) + (changed ? 1 : 0));
  });

  const objectRoutes = Object.keys(MATRIX).filter((k) => k.includes(':uuid') || k.startsWith('DELETE'));
  it.each(objectRoutes.flatMap((key) => ROLES.map((role) => ({ key, role }))))(
    "$key as $role of the other organization on organization A's sandbox → 404",
    async ({ key, role }) => {
      const id = await shared();
      const { method, path, body } = MATRIX[key]!.request(id);
      const caller = role === 'admin' ? w.superAdmin : callerOf(role, w.b);
      const res = await call(caller, method, path, body, w.b.org.id);
      expect(res.status).toBe(404);
    },
  );

  it.each(Object.keys(MATRIX))('%s without a session → 401', async (key) => {
    const { method, path, body } = MATRIX[key]!.request('some-sandbox');
    const req = h.request[method](`/api/v0${path}`);
    expect((await (body ? req.send(body) : req)).status).toBe(401);
  });
});

describe('bad input', () => {
  const long = 'v'.repeat(129);
  it.each([
    [{ name: 'bad#name' }, 400, 'name: Invalid character in name: #'],
    [{ name: '' }, 400, 'name: Please, enter a valid name'],
    [{ version: long }, 400, 'version: Invalid sandbox version format'],
    [{ version: '-1' }, 400, 'version: Invalid sandbox version format'],
    [{ version: '' }, 400, 'version: Please, enter a valid version'],
    [{ entrypoint: '  ' }, 400, 'entrypoint: Please, enter an entrypoint'],
    [
      { constraints: { cpu: 0, memory: 512, disk: 100 } },
      400,
      'constraints.cpu: Please, enter valid resources values',
    ],
    [{ variables: [{ name: 'A', value: '' }] }, 400, "variables.0.value: Can't save with empty values"],
    [{ permissions: { 'not-a-group': { read: true } } }, 400, 'permissions.not-a-group: unknown group'],
    [{ tags: ['never-made'] }, 400, 'tags: unknown tag never-made'],
    [{ file_avatar: { file_body: Buffer.from('GIF89a....').toString('base64') } }, 400, 'file_avatar'],
    [{ description: 'a\u0000b' }, 422, 'description: must not contain NUL'],
    [{ name: 42 }, 422, 'name:'],
    [
      { variables: Array.from({ length: 501 }, (_, i) => ({ name: `V${i}`, value: 'x' })) },
      422,
      'variables:',
    ],
    [{ constraints: { cpu: 'lots', memory: 1, disk: 1 } }, 422, 'constraints.cpu'],
    [{ unexpected: true }, 422, 'unexpected'],
  ])('POST /sandbox with %j → %i naming the field, nothing written', async (overrides, status, message) => {
    const before = await crCount(w.a);
    const res = await call(w.a.user, 'post', '/sandbox', form(overrides));
    expect(res.status).toBe(status);
    expect(res.body.error.message).toContain(message);
    expect(await crCount(w.a)).toBe(before);
  });

  it.each([
    ['put', '/sandbox/Not_An_Id!/name', { name: 'x' }, 400, 'uuid'],
    ['get', '/sandbox?size=20', undefined, 400, 'size'],
    ['get', '/sandbox?visibility=group', undefined, 400, 'visibility'],
    ['get', '/sandbox?tag=unknown', undefined, 400, 'tag'],
    ['delete', '/sandbox', { sandboxes: [] }, 422, 'sandboxes'],
    ['put', '/sandbox/missing-sandbox/name', { name: 'x' }, 404, 'Sandbox not found'],
  ] as const)('%s %s → %i naming %s', async (method, path, body, status, message) => {
    const res = await call(w.a.user, method, path, body);
    expect(res.status).toBe(status);
    expect(res.body.error.message).toContain(message);
  });

  it('refuses a rename with # and leaves the CR as it was', async () => {
    const id = await sandboxOf(w.a);
    const res = await call(w.a.target, 'put', `/sandbox/${id}/name`, { name: 'a#b' });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('name: Invalid character in name: #');
    expect((await crOf(w.a, id)).spec.name).toBe('hello_box');
  });
});

describe('paging, sorting and filters', () => {
  it('pages on the server and sorts by name', async () => {
    const org = w.b;
    for (const name of ['c_box', 'a_box', 'b_box']) await sandboxOf(org, { name });
    const page = await call(
      org.target,
      'get',
      '/sandbox?size=10&sort=name&order=asc&mine=true',
      undefined,
      org.org.id,
    );
    expect(page.body.result.sandboxes.map((s: { name: string }) => s.name)).toEqual([
      'a_box',
      'b_box',
      'c_box',
    ]);
    const second = await call(org.target, 'get', '/sandbox?size=10&page=1', undefined, org.org.id);
    expect(second.body.result).toMatchObject({ sandboxes: [], total: 3, page: 1, size: 10 });
    const privateOnes = await call(org.target, 'get', '/sandbox?visibility=public', undefined, org.org.id);
    expect(privateOnes.body.result.total).toBe(0);
    const executable = await call(org.target, 'get', '/sandbox?execution=true', undefined, org.org.id);
    expect(executable.body.result.groups.map((g: { name: string }) => g.name)).toEqual([
      'a_box',
      'b_box',
      'c_box',
    ]);
  });
});

describe('kubectl and the API meet in the same objects', () => {
  it('serves an object applied with kubectl (any DNS name, no owner), lets an organization admin rename it, and records both in the audit log once', async () => {
    const namespace = `sf-${w.a.org.slug}`;
    await custom.createNamespacedCustomObject({
      ...REF,
      namespace,
      body: {
        apiVersion: 'sandflow.io/v1alpha1',
        kind: 'Sandbox',
        metadata: { name: 'applied-with-kubectl' },
        spec: { name: 'from_kubectl', entrypoint: '/run.sh', visibility: { type: 'public' } },
      },
    });
    const listed = await until(async () => {
      const res = await call(w.a.user, 'get', '/sandbox?search=from_kubectl');
      return res.body.result.sandboxes[0] as
        { uuid: string; author_id: string; user_access: object } | undefined;
    });
    expect(listed).toMatchObject({
      uuid: 'applied-with-kubectl',
      author_id: '',
      user_access: { read: true, write: false, execute: false, owner: false },
    });
    expect((await call(w.a.user, 'put', '/sandbox/applied-with-kubectl/name', { name: 'x' })).status).toBe(
      403,
    );
    const renamed = await call(w.a.orgAdmin, 'put', '/sandbox/applied-with-kubectl/name', {
      name: 'gitops_box',
    });
    expect(renamed.status).toBe(200);
    expect((await crOf(w.a, 'applied-with-kubectl')).spec.name).toBe('gitops_box');

    // A later kubectl change: once the watch has recorded it, it has also seen the API's rename.
    await kubectlPatch(w.a, 'applied-with-kubectl', { spec: { description: 'edited' } });
    const events = await until(async () => {
      const rows = await eventsOf('gitops_box');
      return rows.length >= 2 ? rows : undefined;
    });
    expect(events).toEqual([
      { action: 'rename', user_id: w.a.orgAdmin.id },
      { action: 'update', user_id: null },
    ]);
    expect(await eventsOf('from_kubectl')).toEqual([{ action: 'create', user_id: null }]);
  });

  it('answers 409 naming the object when it changed since it was read (no lost update)', async () => {
    const id = await sandboxOf(w.a);
    const store = servicesFor(h.deps).resources!.sandboxes;
    const stale = store.get(`sf-${w.a.org.slug}`, id)!;
    await kubectlPatch(w.a, id, { spec: { description: 'theirs' } });
    await expect(
      store.replace({ ...stale, spec: { ...stale.spec, description: 'mine' } }, w.a.target.id),
    ).rejects.toMatchObject({ kind: 'conflict', message: expect.stringContaining(`hello_box (${id})`) });
    expect((await crOf(w.a, id)).spec.description).toBe('theirs');
  });
});

describe('sandboxes used by workflows', () => {
  async function workflowUsing(id: string, owner: string) {
    const namespace = `sf-${w.a.org.slug}`;
    const name = `wf-${id.slice(0, 8)}`;
    const body: Workflow = {
      apiVersion: 'sandflow.io/v1alpha1',
      kind: 'Workflow',
      metadata: { name, namespace },
      spec: { name: 'uses_it', owner, nodes: [{ id: 'n1', name: 'hello_box', sandbox: id }], edges: [] },
    };
    await custom.createNamespacedCustomObject({ ...WF, namespace, body });
    await until(() => servicesFor(h.deps).resources!.workflows.get(namespace, name));
    return name;
  }

  it("refuses changes while other people's workflows use the sandbox (409), keeps it on delete without force, deletes it with force", async () => {
    const id = await sandboxOf(w.a);
    const workflow = await workflowUsing(id, w.a.user.id);
    for (const [method, path, body] of [
      ['put', `/sandbox/${id}/name`, { name: 'moved' }],
      ['put', `/sandbox/${id}/variables`, { variables: [{ name: 'X', value: 'y' }] }],
      ['put', `/sandbox/${id}`, form({ entrypoint: '/other.sh' })],
    ] as const) {
      const res = await call(w.a.target, method, path, body);
      expect({ status: res.status, message: res.body.error?.message }).toEqual({
        status: 409,
        message: IN_USE,
      });
    }
    const kept = await call(w.a.target, 'delete', '/sandbox', { sandboxes: [id] });
    expect(kept.body.result).toEqual({
      deleted_sandbox: [],
      workflows: [{ uuid: workflow, name: 'uses_it', sandboxes: [id] }],
    });
    expect((await crOf(w.a, id)).spec.name).toBe('hello_box');
    const forced = await call(w.a.target, 'delete', '/sandbox?force=true', { sandboxes: [id] });
    expect(forced.body.result.deleted_sandbox).toEqual([id]);
    expect((await call(w.a.target, 'get', `/sandbox/${id}`)).status).toBe(404);
  });

  it('lets the owner change a sandbox only their own workflows use', async () => {
    const id = await sandboxOf(w.a);
    await workflowUsing(id, w.a.target.id);
    expect((await call(w.a.target, 'put', `/sandbox/${id}/name`, { name: 'moved' })).status).toBe(200);
  });
});
