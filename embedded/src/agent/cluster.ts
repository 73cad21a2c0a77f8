// The agent's own cluster: the Kubernetes cluster of SANDFLOW_KUBECONFIG where Argo runs (argo-server
// from SANDFLOW_ARGO_SERVER), or, with none given, an embedded kube-lite (its own PGlite in the data
// folder) with Argo's CRDs and a local runner of its own — the same pieces `npm start` uses. The
// runner starts only when the agent says so: after a restart, the platform first deletes the workflows
// this agent held that are no longer its own (moved elsewhere by a retry), so none of their steps
// runs here a second time.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import type { ArgoServer } from '@sandflow/kube';
import type { Logger } from 'pino';
import type { EmbeddedConfig } from '../config.js';
import { installCrds, readCrds } from '../crd-install.js';
import { createDatabase } from '../db/database.js';
import { initPGliteDir } from '../db/pglite.js';
import { startKubeLite } from '../kube-lite/index.js';
import { chooseRuntime, startRunner, type Runner } from '../runner/index.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export interface AgentCluster {
  kc: KubeConfig;
  /** Where the agent forwards the platform's log and file requests (undefined before the runner starts). */
  argoServer(): ArgoServer | undefined;
  /** Starts executing what the cluster holds (idempotent); an existing cluster's Argo always runs. */
  startRunner(): Promise<void>;
  close(): Promise<void>;
}

export async function startAgentCluster(
  config: EmbeddedConfig,
  log: Logger,
  capacity?: { cpu: number; memory: number },
): Promise<AgentCluster> {
  const kc = new KubeConfig();
  if (config.kubeconfig) {
    if (!config.argoServer) throw new Error('with SANDFLOW_KUBECONFIG the agent needs SANDFLOW_ARGO_SERVER');
    kc.loadFromFile(config.kubeconfig);
    log.info({ server: kc.getCurrentCluster()?.server }, 'agent uses an existing cluster');
    const argoServer = config.argoServer;
    return {
      kc,
      argoServer: () => argoServer,
      startRunner: async () => undefined,
      close: async () => undefined,
    };
  }
  fs.mkdirSync(config.dataDir, { recursive: true });
  const pgliteDir = path.join(config.dataDir, 'kube-lite', 'pglite');
  await initPGliteDir(pgliteDir);
  const db = createDatabase({ pgliteDir });
  const kubeLite = await startKubeLite({ db, port: config.kubePort, dataDir: config.dataDir, logger: log });
  kc.loadFromFile(kubeLite.kubeconfigPath!);
  await installCrds(kc, readCrds(path.join(repoRoot, 'embedded/argo-crds')));
  const runtime = chooseRuntime(config.runtime);
  if (runtime.warning) log.warn({ runtime: runtime.kind }, runtime.warning);
  let runner: Promise<Runner> | undefined;
  let started: Runner | undefined;
  return {
    kc,
    argoServer: () =>
      started?.argoServer ? { url: started.argoServer.url, token: started.argoServer.token } : undefined,
    async startRunner() {
      runner ??= startRunner({
        kc,
        dataDir: config.dataDir,
        logger: log,
        runtimeKind: runtime.kind,
        ...(runtime.bwrap ? { bwrap: runtime.bwrap } : {}),
        ...(capacity ? { capacity } : {}),
        registrySecret: config.registrySecret,
        ...(process.env.SANDFLOW_IMAGES_DIR ? { imagesDir: config.imagesDir } : {}),
      });
      started = await runner;
    },
    async close() {
      await (await runner?.catch(() => undefined))?.stop();
      await kubeLite.close();
      await db.destroy();
    },
  };
}
