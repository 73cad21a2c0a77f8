import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../db/database.js';
import { startKubeLite } from './index.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kube-lite-restart-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function boot() {
  const db = createDatabase({ pgliteDir: path.join(dir, 'pglite') });
  const kubeLite = await startKubeLite({ db, dataDir: dir });
  const kc = new KubeConfig();
  kc.loadFromFile(kubeLite.kubeconfigPath!);
  return {
    db,
    kubeLite,
    core: kc.makeApiClient(CoreV1Api),
    stop: async () => (await kubeLite.close(), await db.destroy()),
  };
}

describe('kube-lite restart', () => {
  it('keeps objects, resourceVersions and the token across a restart', { timeout: 120_000 }, async () => {
    const first = await boot();
    const ns = `restart-${Date.now()}`;
    await first.core.createNamespace({ body: { metadata: { name: ns } } });
    const cm = await first.core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'kept' }, data: { a: '1' } },
    });
    const token = first.kubeLite.token;
    await first.stop();

    const second = await boot();
    try {
      expect(second.kubeLite.token).toBe(token);
      const read = await second.core.readNamespacedConfigMap({ name: 'kept', namespace: ns });
      expect(read.metadata?.resourceVersion).toBe(cm.metadata?.resourceVersion);
      expect(read.metadata?.uid).toBe(cm.metadata?.uid);
      expect(read.data).toEqual({ a: '1' });
      const next = await second.core.createNamespacedConfigMap({
        namespace: ns,
        body: { metadata: { name: 'after' }, data: {} },
      });
      expect(Number(next.metadata!.resourceVersion)).toBeGreaterThan(Number(cm.metadata!.resourceVersion));
    } finally {
      await second.stop();
    }
  });
});
