import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CoreV1Api, KubeConfig, Watch } from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../db/database.js';
import { startKubeLite } from './index.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kube-lite-watch-timeout-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('kube-lite watch timeout', () => {
  // A watch that times out while objects change must end quietly: an event between the end of the
  // response and its 'close' used to be written after end, an uncaught error that stopped npm start.
  it('ends watches on their timeout while writes keep coming', { timeout: 60_000 }, async () => {
    const db = createDatabase({ pgliteDir: path.join(dir, 'pglite') });
    const kubeLite = await startKubeLite({ db, dataDir: dir });
    const kc = new KubeConfig();
    kc.loadFromFile(kubeLite.kubeconfigPath!);
    const core = kc.makeApiClient(CoreV1Api);
    try {
      const ns = 'watch-timeout';
      await core.createNamespace({ body: { metadata: { name: ns } } });
      await core.createNamespacedConfigMap({
        namespace: ns,
        body: { metadata: { name: 'busy' }, data: { n: '0' } },
      });
      let writing = true;
      const writes = (async () => {
        for (let n = 1; writing; n++)
          await core.replaceNamespacedConfigMap({
            name: 'busy',
            namespace: ns,
            body: { metadata: { name: 'busy' }, data: { n: String(n) } },
          });
      })();
      const watches = Array.from({ length: 8 }, () => {
        let events = 0;
        return new Promise<number>((resolve, reject) => {
          void new Watch(kc).watch(
            `/api/v1/namespaces/${ns}/configmaps`,
            { timeoutSeconds: 1 },
            () => events++,
            (error?: unknown) => (error ? reject(error as Error) : resolve(events)),
          );
        });
      });
      const seen = await Promise.all(watches);
      await new Promise((r) => setTimeout(r, 500)); // writes go on past the ends
      writing = false;
      await writes;
      expect(seen.every((events) => events > 1)).toBe(true);
      expect((await core.listNamespace()).items.length).toBeGreaterThan(0); // still serving
    } finally {
      await kubeLite.close();
      await db.destroy();
    }
  });
});
