import { CoreV1Api, makeInformer, Watch, type V1ConfigMap } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, freshNamespace, kubeConfig, uniqueName } from '../support/kube.js';

const kc = kubeConfig();
const core = kc.makeApiClient(CoreV1Api);
let namespace: string;
const aborts: AbortController[] = [];

beforeAll(async () => {
  namespace = await freshNamespace(kc, 'watch');
});
afterAll(() => aborts.forEach((a) => a.abort()));

describe('watch', () => {
  it('streams ADDED, MODIFIED and DELETED from a resourceVersion', async () => {
    const list = await core.listNamespacedConfigMap({ namespace });
    const events: string[] = [];
    const abort = await new Watch(kc).watch(
      `/api/v1/namespaces/${namespace}/configmaps`,
      { resourceVersion: list.metadata!.resourceVersion!, allowWatchBookmarks: true },
      (type, obj: V1ConfigMap) => {
        if (type !== 'BOOKMARK') events.push(`${type} ${obj.metadata!.name}`);
      },
      () => undefined,
    );
    aborts.push(abort);
    const name = uniqueName('w');
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name }, data: { v: '1' } } });
    const cur = await core.readNamespacedConfigMap({ name, namespace });
    await core.replaceNamespacedConfigMap({ name, namespace, body: { ...cur, data: { v: '2' } } });
    await core.deleteNamespacedConfigMap({ name, namespace });
    await eventually(() => expect(events).toEqual([`ADDED ${name}`, `MODIFIED ${name}`, `DELETED ${name}`]));
  });

  it('replays what happened after an older resourceVersion', async () => {
    const before = await core.listNamespacedConfigMap({ namespace });
    const name = uniqueName('replay');
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name }, data: {} } });
    const seen: string[] = [];
    const abort = await new Watch(kc).watch(
      `/api/v1/namespaces/${namespace}/configmaps`,
      { resourceVersion: before.metadata!.resourceVersion! },
      (type, obj: V1ConfigMap) => seen.push(`${type} ${obj.metadata!.name}`),
      () => undefined,
    );
    aborts.push(abort);
    await eventually(() => expect(seen).toContain(`ADDED ${name}`));
  });

  it('answers 410 Expired for a resourceVersion older than the server keeps', async () => {
    let error: { code?: number; reason?: string } | undefined;
    const abort = await new Watch(kc).watch(
      `/api/v1/namespaces/${namespace}/configmaps`,
      { resourceVersion: '1' },
      (type, obj: { code?: number; reason?: string }) => {
        if (type === 'ERROR') error = obj;
      },
      () => undefined,
    );
    aborts.push(abort);
    await eventually(() => expect(error?.code).toBe(410));
    expect(error?.reason).toBe('Expired');
  });

  it('sends selector-filtered events, with DELETED when an object stops matching', async () => {
    const list = await core.listNamespacedConfigMap({ namespace });
    const seen: string[] = [];
    const abort = await new Watch(kc).watch(
      `/api/v1/namespaces/${namespace}/configmaps`,
      { resourceVersion: list.metadata!.resourceVersion!, labelSelector: 'watched=yes' },
      (type, obj: V1ConfigMap) => seen.push(`${type} ${obj.metadata!.name}`),
      () => undefined,
    );
    aborts.push(abort);
    const name = uniqueName('sel');
    const created = await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name, labels: { watched: 'yes' } }, data: {} },
    });
    await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: uniqueName('other') }, data: {} },
    });
    await core.replaceNamespacedConfigMap({
      name,
      namespace,
      body: { ...created, metadata: { ...created.metadata, labels: { watched: 'no' } } },
    });
    await eventually(() => expect(seen).toEqual([`ADDED ${name}`, `DELETED ${name}`]));
  });
});

describe('informers', () => {
  it('lists, then follows adds, updates and deletes', async () => {
    const ns = await freshNamespace(kc, 'inform');
    await core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'existing' }, data: {} },
    });
    const informer = makeInformer(kc, `/api/v1/namespaces/${ns}/configmaps`, () =>
      core.listNamespacedConfigMap({ namespace: ns }),
    );
    const log: string[] = [];
    informer.on('add', (o) => log.push(`add ${o.metadata!.name}`));
    informer.on('update', (o) => log.push(`update ${o.metadata!.name} ${o.data?.v ?? ''}`));
    informer.on('delete', (o) => log.push(`delete ${o.metadata!.name}`));
    await informer.start();
    try {
      await eventually(() => expect(log).toContain('add existing'));
      const c = await core.createNamespacedConfigMap({
        namespace: ns,
        body: { metadata: { name: 'fresh' }, data: { v: '1' } },
      });
      await core.replaceNamespacedConfigMap({
        name: 'fresh',
        namespace: ns,
        body: { ...c, data: { v: '2' } },
      });
      await core.deleteNamespacedConfigMap({ name: 'existing', namespace: ns });
      await eventually(() =>
        expect(log).toEqual(['add existing', 'add fresh', 'update fresh 2', 'delete existing']),
      );
      expect(informer.list().map((o) => o.metadata!.name)).toEqual(['fresh']);
    } finally {
      await informer.stop();
    }
  });
});
