import { randomUUID } from 'node:crypto';
import { CoreV1Api, type V1Secret } from '@kubernetes/client-node';
import type { ClusterManager } from '@sandflow/crds';
import { KINDS, Kube } from '@sandflow/kube';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestKube, type TestKube } from '../resources/test-kube.js';
import { REGISTRY_SECRET } from '../services/clusters-registry.js';
import { servicesFor } from '../services/index.js';
import { hashToken } from '../services/tokens.js';
import { deleteClusterManagers } from '../test-support/cluster-managers.js';
import { createHarness, type Harness } from '../test-support/harness.js';
import { createWorld, type World } from '../test-support/world.js';

let kube: TestKube;
let h: Harness;
let w: World;
let k: Kube;
let core: CoreV1Api;

beforeAll(async () => {
  kube = await startTestKube();
  h = await createHarness({ kube: kube.kubeConfig });
  k = new Kube(kube.kubeConfig);
  core = kube.kubeConfig.makeApiClient(CoreV1Api);
}, 60_000);

afterAll(async () => {
  await h?.close();
  await kube?.close();
});

const MINUTE = 60_000;

/** A ClusterManager as the operator (platform) or an agent registers it, last seen `ago` ms ago. */
async function clusterManager(name: string, spec: Partial<ClusterManager['spec']>, ago: number | null) {
  await k.create(KINDS.clusterManager, undefined, {
    apiVersion: 'sandflow.io/v1alpha1',
    kind: 'ClusterManager',
    metadata: { name },
    spec: { title: '', resources: { cpu: 4000, memory: 8192, disk: 20480 }, ...spec },
  });
  if (ago !== null)
    await k.patchStatus(KINDS.clusterManager, undefined, name, {
      lastSeen: new Date(Date.now() - ago).toISOString(),
    });
}

const crOf = (name: string) => k.get<ClusterManager>(KINDS.clusterManager, undefined, name);
const crNames = async () =>
  (await k.list<ClusterManager>(KINDS.clusterManager)).items.map((cm) => cm.metadata.name!).sort();

beforeEach(async () => {
  await h.reset();
  await deleteClusterManagers(kube.kubeConfig);
  w = await createWorld(h.db);
  const services = servicesFor(h.deps);
  for (const t of [w.a, w.b]) await services.kube.syncOrganization(t.org);
  await clusterManager('platform', { platformOwned: true, label: 'host-1' }, 10_000);
  await clusterManager('cm-a', { organizations: [w.a.org.id], title: 'Alpha box' }, 2.5 * MINUTE);
  await clusterManager('cm-b', { organizations: [w.b.org.id] }, null);
  await clusterManager('cm-ab', { organizations: [w.a.org.id, w.b.org.id] }, MINUTE);
  await clusterManager('cm-pub', { public: true }, 10 * MINUTE);
});

type Method = 'get' | 'post' | 'put' | 'delete';
type Who = 'super' | 'orgAdminA' | 'groupAdminA' | 'userA' | 'orgAdminB';

const userOf = (who: Who) =>
  ({
    super: { id: w.superAdmin.id, org: w.a.org.id },
    orgAdminA: { id: w.a.orgAdmin.id, org: w.a.org.id },
    groupAdminA: { id: w.a.groupAdmin.id, org: w.a.org.id },
    userA: { id: w.a.user.id, org: w.a.org.id },
    orgAdminB: { id: w.b.orgAdmin.id, org: w.b.org.id },
  })[who];

async function call(who: Who, method: Method, path: string, body?: object) {
  const { id, org } = userOf(who);
  const req = h.request[method](`/api/v0${path}`).set('Authorization', `Bearer ${await h.tokenFor(id, org)}`);
  return body ? req.send(body) : req;
}

describe('GET /cluster and GET /admin/cluster', () => {
  it.each([
    ['super', '/cluster', ['cm-a', 'cm-ab', 'cm-b', 'cm-pub', 'platform']],
    ['super', '/admin/cluster', ['cm-a', 'cm-ab', 'cm-b', 'cm-pub', 'platform']],
    ['orgAdminA', '/cluster', ['cm-a', 'cm-ab', 'cm-pub', 'platform']],
    ['userA', '/cluster', ['cm-a', 'cm-ab', 'cm-pub', 'platform']],
    ['orgAdminB', '/cluster', ['cm-ab', 'cm-b', 'cm-pub', 'platform']],
  ] as const)('%s lists %s: %j', async (who, path, ids) => {
    const res = await call(who, 'get', path);
    expect(res.status).toBe(200);
    expect(res.body.result.map((c: { id: string }) => c.id).sort()).toEqual(ids);
  });

  it('answers each one with its connection from lastSeen (spec 3 §4) and the platform flag', async () => {
    const res = await call('super', 'get', '/admin/cluster');
    const byId = Object.fromEntries(res.body.result.map((c: { id: string }) => [c.id, c]));
    expect(byId.platform).toMatchObject({
      name: 'host-1',
      isIlluminia: true,
      connection: 'connected',
      isAlive: true,
      cpu: 4000,
      memory: 8192,
      disk: 20480,
    });
    expect(byId['cm-a']).toMatchObject({ name: 'Alpha box', connection: 'connecting', isAlive: true });
    expect(byId['cm-b']).toMatchObject({
      name: 'cm-b',
      connection: 'closed',
      isAlive: false,
      lastUpdate: null,
    });
    expect(byId['cm-pub']).toMatchObject({ public: true, connection: 'closed', isAlive: false });
    expect(byId['cm-ab'].organizations.sort()).toEqual([w.a.org.id, w.b.org.id].sort());
  });
});

describe('POST /cluster', () => {
  it('answers the agent token once and keeps only its SHA-256', async () => {
    const res = await call('orgAdminA', 'post', '/cluster', {});
    expect(res.status).toBe(201);
    const { id, token, token_id } = res.body.result;
    expect(token).toMatch(/^sfa_[\w-]{40,}$/);
    const cr = await crOf(id);
    expect(cr?.spec).toMatchObject({ organizations: [w.a.org.id], public: false, platformOwned: false });

    // The database holds the hash, nowhere the token itself.
    const rows = await h.db('cluster_tokens').select('*');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ id: token_id, cluster_manager: id, token_hash: hashToken(token) });
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(JSON.stringify(await h.db('events').select('*'))).not.toContain(token);
    expect(await h.db('events').where({ kind: 'clusters' }).pluck('action')).toEqual(['create']);

    // Never shown again, and it opens this cluster manager.
    for (const path of ['/cluster', '/admin/cluster']) {
      const list = await call('super', 'get', path);
      expect(list.body.result.map((c: { id: string }) => c.id)).toContain(id);
      expect(JSON.stringify(list.body)).not.toContain(token);
    }
    const services = servicesFor(h.deps);
    expect(await services.clusterTokens.verifyAgentToken(token)).toEqual({ clusterManager: id });
  });

  it.each([
    ['a public one', { public: true }, { public: true, organizations: [] }],
    ['a private one for two organizations', 'both', { public: false }],
  ] as const)('lets the super admin add %s', async (_name, body, spec) => {
    const sent = body === 'both' ? { organizations: [w.a.org.id, w.b.org.id] } : body;
    const res = await call('super', 'post', '/cluster', sent);
    expect(res.status).toBe(201);
    const cr = await crOf(res.body.result.id);
    expect(cr?.spec).toMatchObject(spec);
    if (body === 'both') expect(cr?.spec.organizations?.sort()).toEqual([w.a.org.id, w.b.org.id].sort());
  });
});

describe('rename and visibility (super admin)', () => {
  it('renames, makes public and assigns to organizations', async () => {
    const renamed = await call('super', 'put', '/cluster/cm-b/name', { name: '  GPU rack  ' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.result).toMatchObject({ id: 'cm-b', name: 'GPU rack', title: 'GPU rack' });
    expect((await crOf('cm-b'))?.spec.title).toBe('GPU rack');

    const before = await call('orgAdminA', 'get', '/cluster');
    expect(before.body.result.map((c: { id: string }) => c.id)).not.toContain('cm-b');
    const pub = await call('super', 'put', '/cluster/cm-b', { id: 'cm-b', is_public: true });
    expect(pub.body.result).toMatchObject({ public: true });
    const after = await call('orgAdminA', 'get', '/cluster');
    expect(after.body.result.map((c: { id: string }) => c.id)).toContain('cm-b');

    const assigned = await call('super', 'put', '/cluster/cm-b', {
      is_public: false,
      organizations: [w.a.org.id],
    });
    expect(assigned.body.result).toMatchObject({ public: false, organizations: [w.a.org.id] });
    expect((await crOf('cm-b'))?.spec).toMatchObject({ public: false, organizations: [w.a.org.id] });
    expect(await h.db('events').where({ kind: 'clusters' }).orderBy('id').pluck('action')).toEqual([
      'rename',
      'update',
      'update',
    ]);
  });

  it('answers 404 for a cluster manager that does not exist', async () => {
    expect((await call('super', 'put', '/cluster/cm-none/name', { name: 'x' })).status).toBe(404);
    expect((await call('super', 'put', '/cluster/cm-none', { is_public: true })).status).toBe(404);
  });
});

describe('DELETE /cluster/{id}', () => {
  // Role matrix (spec 3 §6): the super admin deletes any but the platform's; an organization admin
  // unlinks one assigned to their organization (deleting it when theirs alone); another
  // organization's is a 404; group admins and users may not.
  it.each([
    ['super', 'platform', 409, 'kept'],
    ['orgAdminA', 'platform', 409, 'kept'],
    ['super', 'cm-b', 200, 'deleted'],
    ['super', 'cm-pub', 200, 'deleted'],
    ['orgAdminA', 'cm-a', 200, 'deleted'],
    ['orgAdminA', 'cm-ab', 200, 'unlinked'],
    ['orgAdminA', 'cm-b', 404, 'kept'],
    ['orgAdminA', 'cm-pub', 403, 'kept'],
    ['orgAdminA', 'cm-none', 404, 'kept'],
    ['groupAdminA', 'cm-a', 403, 'kept'],
    ['userA', 'cm-a', 403, 'kept'],
  ] as const)('%s deleting %s → %i (%s)', async (who, id, status, outcome) => {
    const services = servicesFor(h.deps);
    const { token } = await services.clusterTokens.issue(id, null);
    const before = await crOf(id);
    const res = await call(who, 'delete', `/cluster/${id}`);
    expect(res.status).toBe(status);
    if (id === 'platform')
      expect(res.body.error.message).toMatch(/platform cluster manager cannot be deleted/);
    const after = await crOf(id);
    const live = await services.clusterTokens.verifyAgentToken(token);
    if (outcome === 'deleted') {
      expect(after).toBeUndefined();
      expect(live).toBeNull();
    } else {
      expect(live).toEqual({ clusterManager: id });
      if (outcome === 'unlinked') expect(after?.spec.organizations).toEqual([w.b.org.id]);
      else expect(after?.spec).toEqual(before?.spec);
    }
  });

  it('takes a deleted cluster manager out of the organizations that disabled it', async () => {
    expect((await call('orgAdminA', 'put', `/organizations/${w.a.org.id}/disable/cm-ab`)).status).toBe(200);
    expect((await call('orgAdminB', 'put', `/organizations/${w.b.org.id}/disable/cm-ab`)).status).toBe(200);
    expect((await call('super', 'delete', '/cluster/cm-ab')).status).toBe(200);
    expect(await h.db('organizations').orderBy('name').pluck('disabled_clusters')).toEqual([[], []]);
  });
});

describe('PUT and DELETE /organizations/{id}/disable/{clusterId}', () => {
  it('takes a cluster manager out of the organization scheduling and puts it back', async () => {
    const path = `/organizations/${w.a.org.id}/disable/cm-ab`;
    const disabled = await call('orgAdminA', 'put', path);
    expect(disabled.status).toBe(200);
    expect(disabled.body.result.disabled_clusters).toEqual(['cm-ab']);
    // What the operator's admission reads.
    expect((await crOf('cm-ab'))?.spec.disabledOrganizations).toEqual([w.a.org.id]);
    const listA = await call('userA', 'get', '/cluster');
    expect(listA.body.result.find((c: { id: string }) => c.id === 'cm-ab').disabled).toBe(true);
    const listB = await call('orgAdminB', 'get', '/cluster');
    expect(listB.body.result.find((c: { id: string }) => c.id === 'cm-ab').disabled).toBe(false);

    const enabled = await call('orgAdminA', 'delete', path);
    expect(enabled.status).toBe(200);
    expect(enabled.body.result.disabled_clusters).toEqual([]);
    expect((await crOf('cm-ab'))?.spec.disabledOrganizations).toEqual([]);
  });

  it.each([
    ["another organization's cluster manager", 404, () => `/organizations/${w.a.org.id}/disable/cm-b`],
    ['a cluster manager that does not exist', 404, () => `/organizations/${w.a.org.id}/disable/cm-none`],
    ['another organization', 404, () => `/organizations/${w.b.org.id}/disable/cm-ab`],
    ['a malformed cluster id', 400, () => `/organizations/${w.a.org.id}/disable/Not_A_Cluster`],
  ] as const)('answers %s with %i and changes nothing', async (_name, status, path) => {
    const before = await Promise.all(['cm-ab', 'cm-b'].map(crOf));
    const res = await call('orgAdminA', 'put', path());
    expect(res.status).toBe(status);
    expect(await Promise.all(['cm-ab', 'cm-b'].map(crOf))).toEqual(before);
    expect(await h.db('organizations').pluck('disabled_clusters')).toEqual([[], []]);
  });
});

describe('PUT /organizations/{id}/registry', () => {
  const secretOf = async () => {
    try {
      return (await core.readNamespacedSecret({
        namespace: `sf-${w.a.org.slug}`,
        name: REGISTRY_SECRET,
      })) as V1Secret;
    } catch {
      return undefined;
    }
  };
  const dockerConfig = (secret: V1Secret | undefined) =>
    JSON.parse(Buffer.from(secret!.data!['.dockerconfigjson']!, 'base64').toString());
  const save = (registry: object) =>
    call('orgAdminA', 'put', `/organizations/${w.a.org.id}/registry`, { id: w.a.org.id, registry });

  it('writes a dockerconfigjson Secret and never answers the password', async () => {
    const res = await save({
      use_custom: true,
      url: 'https://registry.example.org/',
      username: 'robot',
      password: 's3cret-pw',
    });
    expect(res.status).toBe(200);
    expect(res.body.result.registry).toEqual({
      use_custom: true,
      url: 'https://registry.example.org',
      username: 'robot',
      password: '********',
    });
    const secret = await secretOf();
    expect(secret?.type).toBe('kubernetes.io/dockerconfigjson');
    expect(dockerConfig(secret).auths['registry.example.org']).toMatchObject({
      username: 'robot',
      password: 's3cret-pw',
      auth: Buffer.from('robot:s3cret-pw').toString('base64'),
    });
    const listed = await call('orgAdminA', 'get', '/organizations');
    expect(JSON.stringify(listed.body)).not.toContain('s3cret-pw');

    // The form sends the mask back: the stored password stays.
    const again = await save({
      use_custom: true,
      url: 'https://registry.example.org',
      username: 'robot',
      password: '********',
    });
    expect(again.status).toBe(200);
    expect(dockerConfig(await secretOf()).auths['registry.example.org'].password).toBe('s3cret-pw');

    // A new username with the mask: the old password does not follow it.
    const moved = await save({
      use_custom: true,
      url: 'https://registry.example.org',
      username: 'other',
      password: '********',
    });
    expect(moved.status).toBe(422);
    expect(moved.body.error.message).toMatch(/^registry\.password/);

    // Back to the platform registry: the Secret goes.
    const platform = await save({ use_custom: false });
    expect(platform.body.result.registry).toEqual({ use_custom: false, password: '' });
    expect(await secretOf()).toBeUndefined();
  });
});

describe('PUT /organizations/{id}/mount', () => {
  it.each([
    [
      'no base path, safe mount',
      undefined,
      true,
      ['data//set', '', '  ', '/mnt/x'],
      '/mnt',
      ['/mnt/data/set', '/mnt/x'],
    ],
    [
      'a base path under /mnt',
      'data/',
      true,
      ['a', '/mnt/data/b/', 'a'],
      '/mnt/data',
      ['/mnt/data/a', '/mnt/data/b'],
    ],
    ['safe mount prefixing an absolute row', '/mnt', true, ['/srv/share'], '/mnt', ['/mnt/srv/share']],
    ['safe mount off, own base', '/srv', false, ['x', '/srv//y'], '/srv', ['/srv/x', '/srv/y']],
    ['safe mount prefixing the base', '/data', true, ['x'], '/mnt/data', ['/mnt/data/x']],
  ] as const)('normalizes %s', async (_name, base, safe, rows, expectedBase, expectedRows) => {
    const res = await call('orgAdminA', 'put', `/organizations/${w.a.org.id}/mount`, {
      ...(base !== undefined ? { base_path: base } : {}),
      mount_points: rows,
      safe_mount: safe,
    });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({
      base_path: expectedBase,
      mount_points: expectedRows,
      safe_mount: safe,
    });
    const row = await h.db('organizations').where({ id: w.a.org.id }).first();
    expect([row.mount_base, row.mount_points]).toEqual([expectedBase, expectedRows]);
  });

  it('keeps the stored base path when none is sent', async () => {
    const path = `/organizations/${w.a.org.id}/mount`;
    await call('orgAdminA', 'put', path, { base_path: '/srv', mount_points: [], safe_mount: false });
    const res = await call('orgAdminA', 'put', path, { mount_points: ['a'], safe_mount: false });
    expect(res.body.result).toMatchObject({ base_path: '/srv', mount_points: ['/srv/a'] });
  });
});

describe('bad input', () => {
  const org = () => `/organizations/${w.a.org.id}`;
  const registry = (r: object) => ({
    path: `${org()}/registry`,
    body: { registry: { use_custom: true, ...r } },
  });
  const mount = (body: object) => ({ path: `${org()}/mount`, body });

  /** [what, who, method, request, status, the start of the error message] */
  const BAD: [string, Who, Method, () => { path: string; body?: object }, number, string][] = [
    [
      'a public cluster from an organization admin',
      'orgAdminA',
      'post',
      () => ({ path: '/cluster', body: { public: true } }),
      403,
      'public:',
    ],
    [
      'a cluster for another organization',
      'orgAdminA',
      'post',
      () => ({ path: '/cluster', body: { organizations: [w.b.org.id] } }),
      403,
      'organizations:',
    ],
    [
      'an unknown organization',
      'super',
      'post',
      () => ({ path: '/cluster', body: { organizations: [randomUUID()] } }),
      422,
      'organizations: no organization',
    ],
    [
      'an organization that is no uuid',
      'super',
      'post',
      () => ({ path: '/cluster', body: { organizations: ['alpha'] } }),
      422,
      'organizations.0',
    ],
    [
      'an unknown field',
      'super',
      'post',
      () => ({ path: '/cluster', body: { token: 'sfa_mine' } }),
      422,
      'body: Unrecognized key',
    ],
    [
      'a name of 101 characters',
      'super',
      'put',
      () => ({ path: '/cluster/cm-a/name', body: { name: 'n'.repeat(101) } }),
      422,
      'name: at most 100',
    ],
    [
      'an empty name',
      'super',
      'put',
      () => ({ path: '/cluster/cm-a/name', body: { name: '   ' } }),
      422,
      'name: must not be empty',
    ],
    [
      'a name with NUL',
      'super',
      'put',
      () => ({ path: '/cluster/cm-a/name', body: { name: 'a\u0000b' } }),
      422,
      'name: must not contain NUL',
    ],
    [
      'a name that is no string',
      'super',
      'put',
      () => ({ path: '/cluster/cm-a/name', body: { name: { $ne: 1 } } }),
      422,
      'name',
    ],
    [
      'a cluster id that is no name',
      'super',
      'put',
      () => ({ path: '/cluster/..%2Fetc/name', body: { name: 'x' } }),
      400,
      'id:',
    ],
    [
      'an id of 300 characters',
      'super',
      'delete',
      () => ({ path: `/cluster/${'a'.repeat(300)}` }),
      400,
      'id: at most 253',
    ],
    [
      'visibility for an unknown organization',
      'super',
      'put',
      () => ({ path: '/cluster/cm-a', body: { organizations: [randomUUID()] } }),
      422,
      'organizations: no organization',
    ],
    [
      'an ftp registry',
      'orgAdminA',
      'put',
      () => registry({ url: 'ftp://registry.example.org' }),
      422,
      'registry.url: must be an http(s) URL',
    ],
    [
      'a registry without a scheme',
      'orgAdminA',
      'put',
      () => registry({ url: 'registry.example.org' }),
      422,
      'registry.url: must be an http(s) URL',
    ],
    [
      'a javascript: registry',
      'orgAdminA',
      'put',
      () => registry({ url: 'javascript:alert(1)' }),
      422,
      'registry.url: must be an http(s) URL',
    ],
    ['a private registry without a URL', 'orgAdminA', 'put', () => registry({}), 422, 'registry.url'],
    [
      'an account in the registry URL',
      'orgAdminA',
      'put',
      () => registry({ url: 'https://u:p@registry.example.org' }),
      422,
      'registry.url: put the account',
    ],
    [
      'a password without a username',
      'orgAdminA',
      'put',
      () => registry({ url: 'https://registry.example.org', password: 'p' }),
      422,
      'registry.username',
    ],
    [
      'a row climbing out with ..',
      'orgAdminA',
      'put',
      () => mount({ mount_points: ['ok', '../etc'], safe_mount: true }),
      422,
      'mount_points.1: must not contain . or ..',
    ],
    [
      'an absolute row outside the base',
      'orgAdminA',
      'put',
      () => mount({ base_path: '/data', mount_points: ['x', '/etc'], safe_mount: false }),
      422,
      'mount_points.1: /etc is outside the base path /data',
    ],
    [
      'a /mnt row outside a /mnt base',
      'orgAdminA',
      'put',
      () => mount({ base_path: '/mnt/data', mount_points: ['/mnt/other'], safe_mount: true }),
      422,
      'mount_points.0: /mnt/other is outside the base path /mnt/data',
    ],
    [
      'a prefix that is no parent',
      'orgAdminA',
      'put',
      () => mount({ base_path: '/data', mount_points: ['/database'], safe_mount: false }),
      422,
      'mount_points.0: /database is outside',
    ],
    [
      'safe mount off under the stored /mnt base',
      'orgAdminA',
      'put',
      () => mount({ mount_points: ['/etc/x'], safe_mount: false }),
      422,
      'mount_points.0: /etc/x is outside the base path /mnt',
    ],
    [
      'a base path climbing out',
      'orgAdminA',
      'put',
      () => mount({ base_path: '/mnt/../etc', mount_points: [], safe_mount: true }),
      422,
      'base_path: must not contain',
    ],
    [
      'a row with a dot segment',
      'orgAdminA',
      'put',
      () => mount({ mount_points: ['/mnt/./x'], safe_mount: true }),
      422,
      'mount_points.0: must not contain',
    ],
    [
      'too many rows',
      'orgAdminA',
      'put',
      () => mount({ mount_points: Array.from({ length: 101 }, (_, i) => `r${i}`), safe_mount: true }),
      422,
      'mount_points',
    ],
  ];

  const cases = BAD.map(([what, who, method, request, status, message]) => ({
    what,
    who,
    method,
    request,
    status,
    message,
  }));
  it.each(cases)(
    '$what (as $who) → $status naming it, and nothing changes',
    async ({ who, method, request, status, message }) => {
      const snapshot = async () => ({
        crs: (await k.list<ClusterManager>(KINDS.clusterManager)).items.map((cm) => [
          cm.metadata.name,
          cm.spec,
        ]),
        orgs: await h
          .db('organizations')
          .orderBy('id')
          .select('registry', 'mount_points', 'mount_base', 'safe_mount'),
        tokens: await h.db('cluster_tokens').count('* as n').first(),
      });
      const before = await snapshot();
      const { path, body } = request();
      const res = await call(who, method, path, body);
      expect(res.status).toBe(status);
      expect(res.body.result).toBeNull();
      expect(res.body.error.message.startsWith(message)).toBe(true);
      expect(await snapshot()).toEqual(before);
      expect(await crNames()).toEqual(['cm-a', 'cm-ab', 'cm-b', 'cm-pub', 'platform']);
    },
  );
});
