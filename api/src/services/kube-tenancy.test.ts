import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { ANNOTATIONS, isNotFound } from '@sandflow/kube';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createClusterManager,
  deleteClusterManagers,
  installClusterManagerCrd,
} from '../test-support/cluster-managers.js';
import { createTestDatabase, destroyTestDatabase } from '../test-support/database.js';
import { addMember, createOrganization, createUser } from '../test-support/fixtures.js';
import { createHarness, type Harness } from '../test-support/harness.js';
import { closeServices, servicesFor } from './index.js';
import {
  createKubeTenancy,
  groupNamespace,
  MOUNT_POINTS_ANNOTATION,
  organizationNamespace,
  PROVISIONER_ANNOTATION,
  resourceQuotaHard,
  type KubeTenancy,
} from './kube-tenancy.js';

const SUFFIXES: Record<string, number> = {
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
};
/** The value of a Kubernetes quantity such as 500m, 2, 4096Mi or 4Gi. */
function quantity(text: string): number {
  const match = /^([0-9.]+)([a-zA-Z]*)$/.exec(text);
  if (!match || !(match[2]! in SUFFIXES)) throw new Error(`unexpected quantity ${text}`);
  return Number(match[1]) * SUFFIXES[match[2]!]!;
}

interface StartKubeLiteModule {
  startKubeLite(options: {
    db: Knex;
    port: number;
    host: string;
  }): Promise<{ url: string; token: string; caCert: string; close(): Promise<void> }>;
}

// kube-lite is another workspace's; the API reaches it only through the Kubernetes API.
const KUBE_LITE = fileURLToPath(new URL('../../../embedded/src/kube-lite/index.ts', import.meta.url));

describe('resourceQuotaHard', () => {
  it('writes the spec units as Kubernetes quantities', () => {
    expect(resourceQuotaHard({ cpu: 1500, memory: 2048, disk: 10240 })).toEqual({
      'requests.cpu': '1500m',
      'requests.memory': '2048Mi',
      'requests.ephemeral-storage': '10240Mi',
    });
  });
});

describe.skipIf(!existsSync(KUBE_LITE))('kube tenancy against kube-lite', () => {
  let db: Knex;
  let kubeLite: { url: string; token: string; caCert: string; close(): Promise<void> };
  let core: CoreV1Api;
  let tenancy: KubeTenancy;
  let api: Harness;
  let kubeConfig: KubeConfig;
  const org = { id: '11111111-1111-4111-8111-111111111111', slug: 'acme' };
  const group = {
    id: '22222222-2222-4222-8222-222222222222',
    slug: 'research',
    quota: { cpu: 2000, memory: 4096, disk: 8192 },
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    const { startKubeLite } = (await import(KUBE_LITE)) as StartKubeLiteModule;
    kubeLite = await startKubeLite({ db, port: 0, host: '127.0.0.1' });
    kubeConfig = new KubeConfig();
    kubeConfig.loadFromOptions({
      clusters: [
        { name: 'kube-lite', server: kubeLite.url, caData: Buffer.from(kubeLite.caCert).toString('base64') },
      ],
      users: [{ name: 'sandflow', token: kubeLite.token }],
      contexts: [{ name: 'kube-lite', cluster: 'kube-lite', user: 'sandflow' }],
      currentContext: 'kube-lite',
    });
    core = kubeConfig.makeApiClient(CoreV1Api);
    tenancy = createKubeTenancy(kubeConfig);
    api = await createHarness({ kube: kubeConfig });
    await installClusterManagerCrd(kubeConfig);
  }, 60_000);

  afterAll(async () => {
    await api?.close();
    await kubeLite?.close();
    if (db) await destroyTestDatabase(db);
  });

  const gone = async (name: string) => {
    try {
      const ns = await core.readNamespace({ name });
      return ns.status?.phase === 'Terminating' || !!ns.metadata?.deletionTimestamp;
    } catch (error) {
      return isNotFound(error);
    }
  };

  it('creates the organization and group namespaces with labels and a ResourceQuota, idempotently', async () => {
    await tenancy.syncOrganization(org);
    await tenancy.syncOrganization(org);
    await tenancy.syncGroup(org, group);
    await tenancy.syncGroup(org, group);

    const orgNs = await core.readNamespace({ name: organizationNamespace(org) });
    expect(orgNs.metadata?.labels).toMatchObject({ 'sandflow.io/organization': org.id });
    const groupNs = await core.readNamespace({ name: groupNamespace(org, group) });
    expect(groupNs.metadata?.labels).toMatchObject({
      'sandflow.io/organization': org.id,
      'sandflow.io/group': group.id,
    });
    const quotas = await core.listNamespacedResourceQuota({ namespace: 'sf-acme-research' });
    expect(quotas.items).toHaveLength(1);
    // A real apiserver canonicalizes quantities (2000m → 2, 4096Mi → 4Gi); compare values.
    const hard = quotas.items[0]!.spec?.hard ?? {};
    expect(Object.fromEntries(Object.entries(hard).map(([k, v]) => [k, quantity(v)]))).toEqual({
      'requests.cpu': 2,
      'requests.memory': 4 * 2 ** 30,
      'requests.ephemeral-storage': 8 * 2 ** 30,
    });
  });

  it('updates the ResourceQuota when the group quota changes', async () => {
    await tenancy.syncGroup(org, { ...group, quota: { cpu: 500, memory: 1024, disk: 1024 } });
    const quota = (await core.listNamespacedResourceQuota({ namespace: 'sf-acme-research' })).items[0]!;
    expect(quantity(quota.spec!.hard!['requests.cpu']!)).toBe(0.5);
  });

  it('deletes a group namespace, then every namespace of the organization', async () => {
    await tenancy.syncGroup(org, {
      id: '33333333-3333-4333-8333-333333333333',
      slug: 'ops',
      quota: group.quota,
    });
    await tenancy.deleteGroup(org, { slug: 'ops' });
    expect(await gone('sf-acme-ops')).toBe(true);
    await tenancy.deleteOrganization(org);
    expect(await gone('sf-acme')).toBe(true);
    expect(await gone('sf-acme-research')).toBe(true);
    // Deleting again is fine.
    await tenancy.deleteOrganization(org);
  });

  it('the API creates the namespaces as organizations and groups are created', async () => {
    await createClusterManager(kubeConfig, { resources: { cpu: 8000, memory: 8192, disk: 8192 } });
    const admin = await createUser(api.db, { is_super_admin: true });
    const auth = `Bearer ${await api.tokenFor(admin.id)}`;
    const org = await api.request
      .post('/api/v0/organizations')
      .set('Authorization', auth)
      .send({ name: 'Initech', quota: { cpu: 4000, memory: 4096, disk: 4096 } });
    expect(org.status).toBe(201);
    const orgAuth = `Bearer ${await api.tokenFor(admin.id, org.body.result.id)}`;
    const group = await api.request
      .post('/api/v0/group')
      .set('Authorization', orgAuth)
      .send({ name: 'TPS', quota: { cpu: 1000, memory: 1024, disk: 1024 } });
    expect(group.status).toBe(201);
    const ns = await core.readNamespace({ name: 'sf-initech-tps' });
    expect(ns.metadata?.labels?.['sandflow.io/group']).toBe(group.body.result.id);
    await api.request
      .delete(`/api/v0/organizations/${org.body.result.id}?purge=true`)
      .set('Authorization', auth)
      .expect(200);
    expect(await gone('sf-initech')).toBe(true);
    expect(await gone('sf-initech-tps')).toBe(true);
  });

  it('caps organization quotas by the alive ClusterManagers (spec 3 §5)', async () => {
    await deleteClusterManagers(kubeConfig);
    const admin = await createUser(api.db, { is_super_admin: true });
    const auth = `Bearer ${await api.tokenFor(admin.id)}`;
    const capacity = () => api.request.get('/api/v0/organizations/capacity').set('Authorization', auth);
    // No cluster manager: nothing is free, but an organization without quota can be made.
    expect((await capacity()).body.result).toMatchObject({
      total: { cpu: 0, memory: 0, disk: 0 },
      clusters: 0,
      free: { cpu: 0, memory: 0, disk: 0 },
    });
    const empty = await api.request
      .post('/api/v0/organizations')
      .set('Authorization', auth)
      .send({ name: 'Empty' });
    expect(empty.status).toBe(201);

    await createClusterManager(kubeConfig, { resources: { cpu: 8000, memory: 16_384, disk: 10_000 } });
    await createClusterManager(kubeConfig, {
      resources: { cpu: 4300, memory: 1000, disk: 0 },
      lastSeen: new Date(Date.now() - 60_000),
    });
    // Dead (seen 4 minutes ago) and never seen: not counted.
    await createClusterManager(kubeConfig, {
      resources: { cpu: 64_000, memory: 65_536, disk: 100_000 },
      lastSeen: new Date(Date.now() - 240_000),
    });
    await createClusterManager(kubeConfig, {
      resources: { cpu: 64_000, memory: 0, disk: 0 },
      lastSeen: null,
    });
    expect((await capacity()).body.result).toEqual({
      total: { cpu: 12_300, memory: 17_384, disk: 10_000 },
      clusters: 2,
      allocated: { cpu: 0, memory: 0, disk: 0 },
      free: { cpu: 12_000, memory: 16_896, disk: 9932.8 },
    });

    const over = await api.request
      .post('/api/v0/organizations')
      .set('Authorization', auth)
      .send({ name: 'Hooli', quota: { cpu: 12_500, memory: 1024, disk: 1024 } });
    expect(over.status).toBe(422);
    expect(over.body.error.message).toBe('quota.cpu: at most 12 cores are free');
    expect(await api.db('organizations').where({ name: 'Hooli' }).first()).toBeUndefined();

    const hooli = await api.request
      .post('/api/v0/organizations')
      .set('Authorization', auth)
      .send({ name: 'Hooli', quota: { cpu: 10_000, memory: 1024, disk: 1024 } });
    expect(hooli.status).toBe(201);
    expect((await capacity()).body.result.free).toEqual({ cpu: 2000, memory: 15_872, disk: 8908.8 });

    // Editing: at most what is free (2 cores) plus its own 10.
    const put = (quota: object) =>
      api.request
        .put(`/api/v0/organizations/${hooli.body.result.id}`)
        .set('Authorization', auth)
        .send({ quota });
    const tooBig = await put({ cpu: 12_500, memory: 1024, disk: 1024 });
    expect(tooBig.status).toBe(422);
    expect(tooBig.body.error.message).toBe(
      'quota.cpu: at most 12 cores (the free cluster capacity plus its current quota)',
    );
    expect((await api.db('organizations').where({ name: 'Hooli' }).first()).quota_cpu).toBe(10_000);
    expect((await put({ cpu: 12_000, memory: 1024, disk: 1024 })).status).toBe(200);

    await deleteClusterManagers(kubeConfig);
    await api.request.delete(`/api/v0/organizations/${hooli.body.result.id}`).set('Authorization', auth);
    await api.request.delete(`/api/v0/organizations/${empty.body.result.id}`).set('Authorization', auth);
  });

  it('writes the provisioner and the mount points on the organization namespace for admission and the runner', async () => {
    const admin = await createUser(api.db, { is_super_admin: true });
    const auth = `Bearer ${await api.tokenFor(admin.id)}`;
    const created = await api.request
      .post('/api/v0/organizations')
      .set('Authorization', auth)
      .send({ name: 'Umbrella' });
    expect(created.status).toBe(201);
    const id = created.body.result.id as string;
    const annotations = async () =>
      (await core.readNamespace({ name: 'sf-umbrella' })).metadata?.annotations ?? {};
    expect(await annotations()).toEqual({
      [MOUNT_POINTS_ANNOTATION]: JSON.stringify({ base: '/mnt', points: [] }),
      [ANNOTATIONS.schedulerAlgorithm]: 'round_robin',
    });

    // The scheduler radio of Organization Settings › Cluster Managers reaches the operator's admission.
    const algorithm = await api.request
      .put(`/api/v0/organizations/${id}/algorithm`)
      .set('Authorization', auth)
      .send({ algorithm: 'fill_one' });
    expect(algorithm.status).toBe(200);
    expect((await annotations())[ANNOTATIONS.schedulerAlgorithm]).toBe('fill_one');

    // An organization admin may not turn on a provisioner the super admin has not enabled.
    const orgAdmin = await createUser(api.db);
    await addMember(api.db, { id, name: 'Umbrella', slug: 'umbrella' }, orgAdmin, 'organization_admin');
    const adminAuth = `Bearer ${await api.tokenFor(orgAdmin.id, id)}`;
    const asOrgAdmin = (body: object) =>
      api.request.put(`/api/v0/organizations/${id}`).set('Authorization', adminAuth).send(body);
    const lend = { cpu: 2000, memory: 1024, disk: 512 };
    const early = await asOrgAdmin({ useAutomaticLimit: true, provisionerResources: lend });
    expect(early.status).toBe(403);
    expect(early.body.error.message).toMatch(/the provisioner is not enabled for this organization/);

    const superPut = (body: object) =>
      api.request.put(`/api/v0/organizations/${id}`).set('Authorization', auth).send(body);
    expect((await superPut({ enableProvisioner: true })).status).toBe(200);
    expect(await annotations()).not.toHaveProperty(PROVISIONER_ANNOTATION); // enabled, not turned on
    expect((await asOrgAdmin({ useAutomaticLimit: true, provisionerResources: lend })).status).toBe(200);
    expect(JSON.parse((await annotations())[PROVISIONER_ANNOTATION]!)).toEqual(lend);

    // Disabled for all by the super admin, then back.
    const configure = (disable: boolean) =>
      api.request
        .post('/api/v0/illumina/configuration')
        .set('Authorization', auth)
        .send({ disable_provisioning: disable });
    expect((await configure(true)).status).toBe(200);
    expect(await annotations()).not.toHaveProperty(PROVISIONER_ANNOTATION);
    expect((await configure(false)).status).toBe(200);
    expect(JSON.parse((await annotations())[PROVISIONER_ANNOTATION]!)).toEqual(lend);

    // Locked: the organization admin can no longer change it; turned off by the super admin.
    expect((await superPut({ lockValue: true })).status).toBe(200);
    expect((await asOrgAdmin({ useAutomaticLimit: false })).status).toBe(403);
    expect((await superPut({ enableProvisioner: false })).status).toBe(200);
    expect(await annotations()).not.toHaveProperty(PROVISIONER_ANNOTATION);

    const mount = await api.request
      .put(`/api/v0/organizations/${id}/mount`)
      .set('Authorization', auth)
      .send({ mount_points: ['data', '/mnt/models'], safe_mount: true });
    expect(mount.status).toBe(200);
    expect(JSON.parse((await annotations())[MOUNT_POINTS_ANNOTATION]!)).toEqual({
      base: '/mnt',
      points: ['/mnt/data', '/mnt/models'],
    });
    await api.request.delete(`/api/v0/organizations/${id}`).set('Authorization', auth).expect(200);
  });

  it('mirrors the settings of organizations saved before the mirroring existed when the API starts', async () => {
    // A row written behind the API's back: no namespace, no annotations yet.
    const org = await createOrganization(api.db, { name: 'Initech' });
    const restarted = { ...api.deps };
    servicesFor(restarted); // the services of a freshly started API process on the same database
    try {
      let annotations: Record<string, string> = {};
      for (let i = 0; i < 100 && !annotations[MOUNT_POINTS_ANNOTATION]; i++) {
        try {
          annotations = (await core.readNamespace({ name: `sf-${org.slug}` })).metadata?.annotations ?? {};
        } catch (error) {
          if (!isNotFound(error)) throw error;
        }
        if (!annotations[MOUNT_POINTS_ANNOTATION]) await new Promise((r) => setTimeout(r, 100));
      }
      expect(JSON.parse(annotations[MOUNT_POINTS_ANNOTATION]!)).toEqual({ base: '/mnt', points: [] });
      expect(annotations).not.toHaveProperty(PROVISIONER_ANNOTATION);
    } finally {
      await closeServices(restarted);
    }
  });
});

describe.skipIf(!existsSync(KUBE_LITE))('the platform default registry as the runner pull Secret', () => {
  let db: Knex;
  let kubeLite: { url: string; token: string; caCert: string; close(): Promise<void> };
  let api: Harness;
  let core: CoreV1Api;
  const target = { namespace: 'default', name: 'sandflow-default-registry' };

  beforeAll(async () => {
    db = await createTestDatabase();
    const { startKubeLite } = (await import(KUBE_LITE)) as StartKubeLiteModule;
    kubeLite = await startKubeLite({ db, port: 0, host: '127.0.0.1' });
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [
        { name: 'kube-lite', server: kubeLite.url, caData: Buffer.from(kubeLite.caCert).toString('base64') },
      ],
      users: [{ name: 'sandflow', token: kubeLite.token }],
      contexts: [{ name: 'kube-lite', cluster: 'kube-lite', user: 'sandflow' }],
      currentContext: 'kube-lite',
    });
    core = kc.makeApiClient(CoreV1Api);
    api = await createHarness({ kube: kc });
  }, 60_000);
  afterAll(async () => {
    await api?.close();
    await kubeLite?.close();
    if (db) await destroyTestDatabase(db);
  });

  const secret = async () => {
    try {
      const s = await core.readNamespacedSecret(target);
      return JSON.parse(Buffer.from(s.data!['.dockerconfigjson']!, 'base64').toString()) as {
        auths: Record<string, { username: string; password: string }>;
      };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  };

  it('is written when saved (a bare host is taken as https), at start for what was saved before, and removed when cleared', async () => {
    const deps = { ...api.deps, platformRegistrySecret: target };
    const services = servicesFor(deps);
    try {
      await services.preferences.set({
        registry: { url: 'registry.example.org:5000', username: 'robot', password: 's3cret' },
      });
      await services.platformRegistry.sync();
      expect((await secret())?.auths['registry.example.org:5000']).toMatchObject({
        username: 'robot',
        password: 's3cret',
      });

      await core.deleteNamespacedSecret(target);
      const restartedDeps = { ...api.deps, platformRegistrySecret: target };
      servicesFor(restartedDeps); // a freshly started API process on the same database
      try {
        let found = await secret();
        for (let i = 0; i < 50 && !found; i++) {
          await new Promise((r) => setTimeout(r, 100));
          found = await secret();
        }
        expect(found?.auths['registry.example.org:5000']?.username).toBe('robot');
      } finally {
        await closeServices(restartedDeps);
      }

      await services.preferences.set({ registry: { url: '', username: '', password: '' } });
      await services.platformRegistry.sync();
      expect(await secret()).toBeUndefined();
    } finally {
      await closeServices(deps);
    }
  });
});
