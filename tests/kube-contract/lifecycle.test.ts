import { CoreV1Api, PatchStrategy, setHeaderOptions, type V1ConfigMap } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { eventually, expectStatus, freshNamespace, kubeConfig, uniqueName } from '../support/kube.js';

const kc = kubeConfig();
const core = kc.makeApiClient(CoreV1Api);
let namespace: string;

beforeAll(async () => {
  namespace = await freshNamespace(kc, 'life');
});

async function owned(owner: V1ConfigMap, name: string) {
  return core.createNamespacedConfigMap({
    namespace,
    body: {
      metadata: {
        name,
        ownerReferences: [
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            name: owner.metadata!.name!,
            uid: owner.metadata!.uid!,
            blockOwnerDeletion: true,
          },
        ],
      },
      data: {},
    },
  });
}

const gone = (name: string) =>
  eventually(() => expectStatus(core.readNamespacedConfigMap({ name, namespace }), 404));

describe('finalizers', () => {
  it('keeps an object with finalizers until they are removed', async () => {
    const name = uniqueName('fin');
    await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name, finalizers: ['sandflow.io/test'] }, data: {} },
    });
    await core.deleteNamespacedConfigMap({ name, namespace });
    const marked = await core.readNamespacedConfigMap({ name, namespace });
    expect(marked.metadata?.deletionTimestamp).toBeInstanceOf(Date);
    expect(marked.metadata?.finalizers).toEqual(['sandflow.io/test']);
    await core.patchNamespacedConfigMap(
      { name, namespace, body: [{ op: 'remove', path: '/metadata/finalizers' }] },
      setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
    );
    await gone(name);
  });

  it('refuses new finalizers on an object being deleted', async () => {
    const name = uniqueName('fin');
    await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name, finalizers: ['a.io/x'] }, data: {} },
    });
    await core.deleteNamespacedConfigMap({ name, namespace });
    await expectStatus(
      core.patchNamespacedConfigMap(
        { name, namespace, body: { metadata: { finalizers: ['a.io/x', 'b.io/y'] } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      ),
      422,
      'Invalid',
    );
    await core.patchNamespacedConfigMap(
      { name, namespace, body: { metadata: { finalizers: null } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await gone(name);
  });
});

describe('garbage collection through ownerReferences', () => {
  it('Background: dependents go after the owner', async () => {
    const owner = await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: uniqueName('owner') }, data: {} },
    });
    const dep = await owned(owner, uniqueName('dep'));
    await core.deleteNamespacedConfigMap({
      name: owner.metadata!.name!,
      namespace,
      propagationPolicy: 'Background',
    });
    await gone(dep.metadata!.name!);
  });

  it('Orphan: dependents stay and lose the reference', async () => {
    const owner = await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: uniqueName('owner') }, data: {} },
    });
    const dep = await owned(owner, uniqueName('dep'));
    await core.deleteNamespacedConfigMap({
      name: owner.metadata!.name!,
      namespace,
      propagationPolicy: 'Orphan',
    });
    await gone(owner.metadata!.name!);
    const still = await eventually(async () => {
      const d = await core.readNamespacedConfigMap({ name: dep.metadata!.name!, namespace });
      expect(d.metadata?.ownerReferences ?? []).toHaveLength(0);
      return d;
    });
    expect(still.metadata?.uid).toBe(dep.metadata?.uid);
  });

  it('Foreground: the owner waits for its dependents', async () => {
    const owner = await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: uniqueName('owner') }, data: {} },
    });
    const dep = await owned(owner, uniqueName('dep'));
    await core.deleteNamespacedConfigMap({
      name: owner.metadata!.name!,
      namespace,
      propagationPolicy: 'Foreground',
    });
    await gone(dep.metadata!.name!);
    await gone(owner.metadata!.name!);
  });

  it('keeps a dependent that still has another owner', async () => {
    const a = await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: uniqueName('owner') }, data: {} },
    });
    const b = await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: uniqueName('owner') }, data: {} },
    });
    const refs = [a, b].map((o) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: o.metadata!.name!,
      uid: o.metadata!.uid!,
    }));
    const dep = await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: uniqueName('dep'), ownerReferences: refs }, data: {} },
    });
    await core.deleteNamespacedConfigMap({ name: a.metadata!.name!, namespace });
    await eventually(async () => {
      const d = await core.readNamespacedConfigMap({ name: dep.metadata!.name!, namespace });
      expect(d.metadata?.ownerReferences?.map((r) => r.uid)).toEqual([b.metadata!.uid]);
    });
  });
});

describe('namespaces', () => {
  it('terminates a namespace with everything in it', async () => {
    const ns = await freshNamespace(kc, 'doomed');
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'inside' }, data: {} } });
    const deleted = await core.deleteNamespace({ name: ns });
    expect(deleted).toBeDefined();
    await eventually(() => expectStatus(core.readNamespace({ name: ns }), 404), 30_000, 200);
  });

  it('reports a new namespace Active', async () => {
    const ns = await freshNamespace(kc, 'fresh');
    const read = await core.readNamespace({ name: ns });
    expect(read.status?.phase).toBe('Active');
  });
});
