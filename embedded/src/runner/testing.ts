// Test support: kube-lite (PGlite in memory) with the Argo CRDs installed, a KubeConfig for it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import { installCrds, readCrds } from '../crd-install.js';
import { createTestDatabase } from '../db/database.js';
import { startKubeLite } from '../kube-lite/index.js';

const ARGO_CRDS = fileURLToPath(new URL('../../argo-crds/', import.meta.url));

export async function startTestCluster(extraCrdDirs: string[] = []) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandflow-runner-'));
  const db = await createTestDatabase();
  const kubeLite = await startKubeLite({ db, port: 0, dataDir });
  const kc = new KubeConfig();
  kc.loadFromFile(kubeLite.kubeconfigPath!);
  await installCrds(
    kc,
    [ARGO_CRDS, ...extraCrdDirs].flatMap((d) => readCrds(d)),
  );
  return {
    kc,
    dataDir,
    kubeLite,
    async close() {
      await kubeLite.close();
      await db.destroy();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function until<T>(
  fn: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 15_000,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined && v !== false) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`condition not met in ${timeoutMs} ms`, { cause: last });
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
