import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import type { TestProject } from 'vitest/node';
import { createTestDatabase, installCrds, readCrds, startKubeLite } from '@sandflow/embedded/testing';

/**
 * Gives the `kube` suites a Kubernetes API: kube-lite on loopback with an in-memory
 * database, or — with SANDFLOW_KUBE_TARGET=external — the cluster in KUBECONFIG
 * (a real kube-apiserver started by hack/envtest).
 */
export default async function setup(project: TestProject) {
  if (process.env.SANDFLOW_KUBE_TARGET === 'external') {
    if (!process.env.KUBECONFIG) throw new Error('SANDFLOW_KUBE_TARGET=external needs KUBECONFIG');
    project.provide('kubeconfig', process.env.KUBECONFIG);
    project.provide('kubeTarget', 'external');
    return;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandflow-kube-'));
  const db = await createTestDatabase();
  // Secrets encrypted at rest, as `npm start` keeps them: the contract suites go through that path too.
  const kubeLite = await startKubeLite({ db, dataDir: dir, encryption: { key: randomBytes(32) } });
  const kc = new KubeConfig();
  kc.loadFromFile(kubeLite.kubeconfigPath!);
  // Sandflow's CRDs and Argo's full ones (embedded/argo-crds), as on a cluster with Argo installed.
  await installCrds(
    kc,
    ['../../crds', '../../embedded/argo-crds'].flatMap((d) => readCrds(path.resolve(import.meta.dirname, d))),
  );
  process.env.KUBECONFIG = kubeLite.kubeconfigPath!;
  project.provide('kubeconfig', kubeLite.kubeconfigPath!);
  project.provide('kubeTarget', 'kube-lite');
  return async () => {
    await kubeLite.close();
    await db.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    kubeconfig: string;
    kubeTarget: 'kube-lite' | 'external';
  }
}
