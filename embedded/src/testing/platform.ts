// A whole platform for tests and benchmarks: kube-lite (PGlite in memory) with Sandflow's and Argo's
// CRDs, the local runner and the operator, all in this process, on 127.0.0.1.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import type { Run } from '@sandflow/crds';
import { startOperator, type Operator, type OperatorOptions } from '@sandflow/operator';
import pino from 'pino';
import { installCrds, readCrds } from '../crd-install.js';
import { createTestDatabase } from '../db/database.js';
import { startKubeLite } from '../kube-lite/index.js';
import { startRunner, type Runner, type RunnerOptions } from '../runner/index.js';
import { until as pollUntil } from '../runner/testing.js';

/** The repository's root folder. */
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const run = promisify(execFile);

export interface Env {
  kc: KubeConfig;
  api: CustomObjectsApi;
  dataDir: string;
  kubeconfigPath: string;
  operator: Operator;
  runner: Runner;
  kubectl(...args: string[]): Promise<string>;
  startOperator(extra?: Partial<OperatorOptions>): Promise<Operator>;
  startRunner(extra?: Partial<RunnerOptions>): Promise<Runner>;
  getRun(namespace: string, name: string): Promise<Run>;
  close(): Promise<void>;
}

export const logger = pino({ level: process.env.SANDFLOW_TEST_LOG ?? 'silent' });

export async function startEnv(
  opts: { operator?: Partial<OperatorOptions>; runner?: Partial<RunnerOptions> } = {},
): Promise<Env> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandflow-runs-'));
  const db = await createTestDatabase();
  const kubeLite = await startKubeLite({ db, port: 0, dataDir });
  const kc = new KubeConfig();
  kc.loadFromFile(kubeLite.kubeconfigPath!);
  await installCrds(kc, [
    ...readCrds(path.join(ROOT, 'crds')),
    ...readCrds(path.join(ROOT, 'embedded/argo-crds')),
  ]);
  const api = kc.makeApiClient(CustomObjectsApi);
  const env: Env = {
    kc,
    api,
    dataDir,
    kubeconfigPath: kubeLite.kubeconfigPath!,
    operator: undefined as unknown as Operator,
    runner: undefined as unknown as Runner,
    async kubectl(...args) {
      const { stdout } = await run('kubectl', args, {
        env: { ...process.env, KUBECONFIG: kubeLite.kubeconfigPath! },
        timeout: 30_000,
      });
      return stdout;
    },
    startOperator: (extra = {}) =>
      startOperator({
        kc,
        logger,
        leaseDurationSeconds: 3,
        heartbeatMs: 2000,
        queuedRetryMs: 1000,
        platformResources: { cpu: 4000, memory: 8192, disk: 100_000 },
        ...opts.operator,
        ...extra,
      }),
    startRunner: (extra = {}) =>
      startRunner({
        kc,
        dataDir,
        logger,
        capacity: { cpu: 4000, memory: 8192 },
        gracePeriodSeconds: 1,
        ...opts.runner,
        ...extra,
      }),
    async getRun(namespace, name) {
      return (await api.getNamespacedCustomObject({
        group: 'sandflow.io',
        version: 'v1alpha1',
        plural: 'runs',
        namespace,
        name,
      })) as Run;
    },
    async close() {
      await env.operator?.stop().catch(() => undefined);
      await env.runner?.stop().catch(() => undefined);
      await kubeLite.close();
      await db.destroy();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  env.runner = await env.startRunner();
  env.operator = await env.startOperator();
  return env;
}

/** Polls `fn` until it gives a value: the runner's helper with the slower pace of whole-platform tests. */
export const until = <T>(
  fn: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 30_000,
  everyMs = 100,
): Promise<T> => pollUntil(fn, timeoutMs, everyMs);

export async function listRuns(env: Env, namespace: string): Promise<Run[]> {
  const l = (await env.api.listNamespacedCustomObject({
    group: 'sandflow.io',
    version: 'v1alpha1',
    plural: 'runs',
    namespace,
  })) as { items: Run[] };
  return l.items;
}
