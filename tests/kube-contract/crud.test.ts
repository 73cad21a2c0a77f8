import {
  CoreV1Api,
  CoordinationV1Api,
  PatchStrategy,
  setHeaderOptions,
  type V1ConfigMap,
} from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectStatus, freshNamespace, kubeConfig, uniqueName } from '../support/kube.js';

const kc = kubeConfig();
const core = kc.makeApiClient(CoreV1Api);
let namespace: string;

const configMap = (
  name: string,
  data: Record<string, string> = { a: '1' },
  labels?: Record<string, string>,
): V1ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...(labels ? { labels } : {}) },
  data,
});

beforeAll(async () => {
  namespace = await freshNamespace(kc, 'crud');
});

describe('create, read, update, delete', () => {
  it('creates and reads back a ConfigMap with server-set metadata', async () => {
    const created = await core.createNamespacedConfigMap({ namespace, body: configMap('plain') });
    expect(created.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number(created.metadata?.resourceVersion)).toBeGreaterThan(0);
    expect(created.metadata?.creationTimestamp).toBeInstanceOf(Date);
    const read = await core.readNamespacedConfigMap({ name: 'plain', namespace });
    expect(read.data).toEqual({ a: '1' });
    expect(read.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);
  });

  it('generates a name from generateName', async () => {
    const created = await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { generateName: 'gen-' }, data: {} },
    });
    expect(created.metadata?.name).toMatch(/^gen-[a-z0-9]{5}$/);
  });

  it('refuses a duplicate name with AlreadyExists', async () => {
    await core.createNamespacedConfigMap({ namespace, body: configMap('dup') });
    const status = await expectStatus(
      core.createNamespacedConfigMap({ namespace, body: configMap('dup') }),
      409,
      'AlreadyExists',
    );
    expect(status.message).toBe('configmaps "dup" already exists');
  });

  it('answers NotFound for a missing object and a missing namespace', async () => {
    const s = await expectStatus(
      core.readNamespacedConfigMap({ name: 'missing', namespace }),
      404,
      'NotFound',
    );
    expect(s.message).toBe('configmaps "missing" not found');
    await expectStatus(
      core.createNamespacedConfigMap({ namespace: uniqueName('nope'), body: configMap('x') }),
      404,
      'NotFound',
    );
  });

  it('updates with the current resourceVersion and refuses a stale one with Conflict', async () => {
    const created = await core.createNamespacedConfigMap({ namespace, body: configMap('versioned') });
    const updated = await core.replaceNamespacedConfigMap({
      name: 'versioned',
      namespace,
      body: { ...created, data: { a: '2' } },
    });
    expect(updated.data).toEqual({ a: '2' });
    expect(Number(updated.metadata!.resourceVersion)).toBeGreaterThan(
      Number(created.metadata!.resourceVersion),
    );
    const s = await expectStatus(
      core.replaceNamespacedConfigMap({
        name: 'versioned',
        namespace,
        body: { ...created, data: { a: '3' } },
      }),
      409,
      'Conflict',
    );
    expect(s.message).toContain('the object has been modified');
  });

  it.each([
    ['merge patch', PatchStrategy.MergePatch, { data: { b: '2' } }, { a: '1', b: '2' }],
    ['json patch', PatchStrategy.JsonPatch, [{ op: 'add', path: '/data/b', value: '2' }], { a: '1', b: '2' }],
    ['strategic merge patch', PatchStrategy.StrategicMergePatch, { data: { a: null, c: '3' } }, { c: '3' }],
  ])('applies a %s', async (_label, strategy, body, expected) => {
    const name = uniqueName('patch');
    await core.createNamespacedConfigMap({ namespace, body: configMap(name) });
    const patched = await core.patchNamespacedConfigMap(
      { name, namespace, body },
      setHeaderOptions('Content-Type', strategy),
    );
    expect(patched.data).toEqual(expected);
  });

  it('deletes an object without finalizers at once', async () => {
    await core.createNamespacedConfigMap({ namespace, body: configMap('short-lived') });
    await core.deleteNamespacedConfigMap({ name: 'short-lived', namespace });
    await expectStatus(core.readNamespacedConfigMap({ name: 'short-lived', namespace }), 404, 'NotFound');
  });

  it('keeps one resourceVersion sequence across kinds', async () => {
    const a = await core.createNamespacedConfigMap({ namespace, body: configMap(uniqueName('seq')) });
    const b = await core.createNamespacedSecret({
      namespace,
      body: { metadata: { name: uniqueName('seq') }, stringData: { k: 'v' } },
    });
    expect(Number(b.metadata!.resourceVersion)).toBeGreaterThan(Number(a.metadata!.resourceVersion));
    expect(b.data).toEqual({ k: Buffer.from('v').toString('base64') });
  });

  it('stores Leases for leader election and refuses a stale renewal', async () => {
    const leases = kc.makeApiClient(CoordinationV1Api);
    const lease = await leases.createNamespacedLease({
      namespace,
      body: { metadata: { name: 'leader' }, spec: { holderIdentity: 'a', leaseDurationSeconds: 15 } },
    });
    const renewed = await leases.replaceNamespacedLease({
      name: 'leader',
      namespace,
      body: { ...lease, spec: { ...lease.spec, holderIdentity: 'a', leaseTransitions: 1 } },
    });
    expect(renewed.spec?.leaseTransitions).toBe(1);
    await expectStatus(
      leases.replaceNamespacedLease({
        name: 'leader',
        namespace,
        body: { ...lease, spec: { holderIdentity: 'b' } },
      }),
      409,
      'Conflict',
    );
  });
});

describe('list, selectors and pagination', () => {
  let ns: string;
  beforeAll(async () => {
    ns = await freshNamespace(kc, 'list');
    const tiers = ['web', 'web', 'db', 'cache', 'db', 'web', 'batch'];
    for (const [i, tier] of tiers.entries()) {
      await core.createNamespacedConfigMap({
        namespace: ns,
        body: configMap(`item-${i}`, { i: String(i) }, { tier, ...(i % 2 === 0 ? { even: 'yes' } : {}) }),
      });
    }
  });

  it.each([
    ['tier=web', ['item-0', 'item-1', 'item-5']],
    ['tier==db', ['item-2', 'item-4']],
    ['tier!=web', ['item-2', 'item-3', 'item-4', 'item-6']],
    ['tier in (db,cache)', ['item-2', 'item-3', 'item-4']],
    ['tier notin (web,db)', ['item-3', 'item-6']],
    ['even', ['item-0', 'item-2', 'item-4', 'item-6']],
    ['!even', ['item-1', 'item-3', 'item-5']],
    ['tier=web,even', ['item-0']],
  ])('labelSelector %s', async (labelSelector, expected) => {
    const list = await core.listNamespacedConfigMap({ namespace: ns, labelSelector });
    expect(list.items.map((i) => i.metadata!.name).sort()).toEqual(expected);
  });

  it('fieldSelector metadata.name', async () => {
    const list = await core.listNamespacedConfigMap({ namespace: ns, fieldSelector: 'metadata.name=item-3' });
    expect(list.items.map((i) => i.metadata!.name)).toEqual(['item-3']);
  });

  it('refuses an unsupported field selector', async () => {
    await expectStatus(
      core.listNamespacedConfigMap({ namespace: ns, fieldSelector: 'data.i=3' }),
      400,
      'BadRequest',
    );
  });

  it('pages with limit and continue, covering every item once', async () => {
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await core.listNamespacedConfigMap({
        namespace: ns,
        limit: 3,
        ...(token ? { _continue: token } : {}),
      });
      seen.push(...page.items.map((i) => i.metadata!.name!));
      token = page.metadata?._continue || undefined;
      pages++;
    } while (token);
    expect(pages).toBe(3);
    expect(seen.sort()).toEqual(Array.from({ length: 7 }, (_, i) => `item-${i}`).sort());
  });

  it('lists across namespaces', async () => {
    const list = await core.listConfigMapForAllNamespaces({ labelSelector: 'tier=batch' });
    expect(list.items.some((i) => i.metadata!.namespace === ns && i.metadata!.name === 'item-6')).toBe(true);
  });

  it('deletes a collection by label', async () => {
    await core.deleteCollectionNamespacedConfigMap({ namespace: ns, labelSelector: 'tier=cache' });
    const list = await core.listNamespacedConfigMap({ namespace: ns, labelSelector: 'tier=cache' });
    expect(list.items).toHaveLength(0);
  });
});
