// Test support: kube-lite (PGlite in memory) with the Argo CRDs installed, a KubeConfig for it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import { FINAL_WORKFLOW_PHASES, KINDS, type Kube } from '@sandflow/kube';
import type { ArgoWorkflow } from './argo.js';
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

/** The Argo workflow once it reached a final phase. */
export const finishedWorkflow = (kube: Kube, ns: string, name: string, timeoutMs = 20_000) =>
  until(async () => {
    const wf = await kube.get<ArgoWorkflow>(KINDS.argoWorkflow, ns, name);
    return wf && FINAL_WORKFLOW_PHASES.has(wf.status?.phase ?? '') ? wf : undefined;
  }, timeoutMs);

/** Creates an Argo workflow and waits for it to finish. */
export async function submitWorkflow(
  kube: Kube,
  ns: string,
  name: string,
  spec: ArgoWorkflow['spec'],
  timeoutMs = 20_000,
): Promise<ArgoWorkflow> {
  await kube.create(KINDS.argoWorkflow, ns, {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Workflow',
    metadata: { name },
    spec,
  });
  return finishedWorkflow(kube, ns, name, timeoutMs);
}
