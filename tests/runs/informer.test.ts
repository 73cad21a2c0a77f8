// @sandflow/kube's informer on kube-lite: `synced` waits for a list that succeeds (restarting after
// failures), the cache and its indexes follow adds, label changes and deletes.
import path from 'node:path';
import { ROOT, installCrds, readCrds, startTestCluster, until } from '@sandflow/embedded/testing';
import { KINDS, Kube, LABELS, keyOf, startInformer, type ArgoWorkflow, type EventType } from '@sandflow/kube';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let cluster: Awaited<ReturnType<typeof startTestCluster>>;
let kube: Kube;
beforeAll(async () => {
  cluster = await startTestCluster(); // Argo's CRDs only
  kube = new Kube(cluster.kc);
}, 60_000);
afterAll(async () => cluster?.close());

const workflow = (name: string, run?: string) => ({
  apiVersion: 'argoproj.io/v1alpha1',
  kind: 'Workflow',
  metadata: { name, ...(run ? { labels: { [LABELS.run]: run } } : {}) },
  spec: { entrypoint: 'main', templates: [{ name: 'main', suspend: {} }], suspend: true },
});

describe('startInformer', () => {
  it('is synced only once a list succeeded: failing lists are retried until the kind exists', async () => {
    const failures: unknown[] = [];
    const informer = startInformer(kube, KINDS.run, {
      log: { warn: (obj) => void failures.push(obj) },
      restartDelayMs: 50,
    });
    let synced = false;
    void informer.synced.then(() => (synced = true));
    try {
      await until(() => failures.length >= 2 || undefined);
      expect(synced).toBe(false);
      await installCrds(cluster.kc, readCrds(path.join(ROOT, 'crds')));
      await informer.synced;
      expect(informer.list()).toEqual([]);
    } finally {
      await informer.stop();
    }
  });

  it('keeps the cache and the indexes in step with adds, label changes and deletes', async () => {
    const ns = 'default';
    await kube.create(KINDS.argoWorkflow, ns, workflow('w1', 'r1'));
    const events: string[] = [];
    const informer = startInformer<ArgoWorkflow>(kube, KINDS.argoWorkflow, {
      log: { warn: () => undefined },
      labelIndexes: { run: LABELS.run },
      indexes: { key: (o) => keyOf(o) },
      on: (type: EventType, o) => void events.push(`${type} ${o.metadata.name}`),
    });
    const names = (run: string) => informer.byIndex('run', run).map((w) => w.metadata.name);
    try {
      await informer.synced;
      expect(names('r1')).toEqual(['w1']);
      await kube.create(KINDS.argoWorkflow, ns, workflow('w2', 'r1'));
      await kube.create(KINDS.argoWorkflow, ns, workflow('w3'));
      await until(() => informer.list(ns).length === 3 || undefined);
      expect(names('r1').sort()).toEqual(['w1', 'w2']);
      await kube.patch(KINDS.argoWorkflow, ns, 'w2', { metadata: { labels: { [LABELS.run]: 'r2' } } });
      await until(() => names('r2').length === 1 || undefined);
      expect(names('r1')).toEqual(['w1']);
      await kube.delete(KINDS.argoWorkflow, ns, 'w1');
      await until(() => !informer.get('w1', ns) || undefined);
      expect({ r1: names('r1'), r2: names('r2'), byKey: informer.byIndex('key', `${ns}/w3`).length }).toEqual(
        {
          r1: [],
          r2: ['w2'],
          byKey: 1,
        },
      );
      expect(events).toEqual(['add w1', 'add w2', 'add w3', 'update w2', 'delete w1']);
      expect(() => informer.byIndex('nope', 'x')).toThrow(/no index nope/);
    } finally {
      await informer.stop();
    }
  });
});
