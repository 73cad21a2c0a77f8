// Issue 19 §3: kube-lite restarted under the operator and the runner. The all-in-one process cannot
// restart kube-lite alone, so this is at the library level (as tests/runs does with startEnv): one
// database, kube-lite stopped while a run is in its steps and started again on the same data, port
// and data folder (token and serving certificate kept); the informers reconnect by themselves, the
// run in flight ends once and a new run completes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import type { Run } from '@sandflow/crds';
import { startOperator, type Operator } from '@sandflow/operator';
import { startRunner, type Runner } from '@sandflow/embedded/runner';
import {
  ROOT,
  chain,
  createRun,
  createTestDatabase,
  installCrds,
  logger,
  readCrds,
  startKubeLite,
  until,
  type Env,
  type KubeLite,
} from '@sandflow/embedded/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandflow-faults-kube-'));
const db = await createTestDatabase();
let kubeLite: KubeLite;
let runner: Runner;
let operator: Operator;
let kc: KubeConfig;
let api: CustomObjectsApi;

beforeAll(async () => {
  kubeLite = await startKubeLite({ db, port: 0, host: '127.0.0.1', dataDir });
  kc = new KubeConfig();
  kc.loadFromFile(kubeLite.kubeconfigPath!);
  api = kc.makeApiClient(CustomObjectsApi);
  await installCrds(kc, [
    ...readCrds(path.join(ROOT, 'crds')),
    ...readCrds(path.join(ROOT, 'embedded/argo-crds')),
  ]);
  runner = await startRunner({
    kc,
    dataDir,
    logger,
    capacity: { cpu: 4000, memory: 8192 },
    gracePeriodSeconds: 1,
  });
  operator = await startOperator({
    kc,
    logger,
    leaseDurationSeconds: 3,
    heartbeatMs: 2000,
    queuedRetryMs: 1000,
    platformResources: { cpu: 4000, memory: 8192, disk: 100_000 },
  });
}, 120_000);
afterAll(async () => {
  await operator?.stop().catch(() => undefined);
  await runner?.stop().catch(() => undefined);
  await kubeLite?.close();
  await db.destroy();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** What chain() and createRun() use of a test platform: its Kubernetes clients. */
const env = () => ({ kc, api }) as unknown as Env;
const getRun = async (name: string) =>
  (await api.getNamespacedCustomObject({
    group: 'sandflow.io',
    version: 'v1alpha1',
    plural: 'runs',
    namespace: 'kl',
    name,
  })) as Run;
const phase = (name: string, want: string[], ms: number) =>
  until(async () => {
    const r = await getRun(name).catch(() => undefined);
    return r && want.includes(r.status?.phase ?? '') ? r : undefined;
  }, ms);

describe('kube-lite restarted under the operator and the runner', () => {
  it('the run in flight ends once, each step ran once, and a new run completes', async () => {
    await chain(env(), 'kl', {
      a: 'echo a >> /sandflow/executions; sleep 3',
      b: 'echo b >> /sandflow/executions',
      c: 'echo c >> /sandflow/executions',
    });
    await createRun(env(), 'kl', 'r1');
    await phase('r1', ['RUNNING'], 60_000);

    const port = new URL(kubeLite.url).port;
    await kubeLite.close();
    await new Promise((r) => setTimeout(r, 2000)); // the watches and the lease renewals fail meanwhile
    kubeLite = await startKubeLite({ db, port: Number(port), host: '127.0.0.1', dataDir });
    expect(kubeLite.url).toContain(`:${port}`);

    const r1 = await phase('r1', ['COMPLETED', 'ERROR'], 120_000);
    expect(r1.status!.phase, JSON.stringify(r1.status)).toBe('COMPLETED');
    expect(r1.status!.history!.filter((h) => h.action === 'INIT')).toHaveLength(1);
    const lines = fs
      .readFileSync(path.join(dataDir, 'runs', 'kl', 'r1', 'shared', 'executions'), 'utf8')
      .split('\n')
      .filter(Boolean);
    expect(lines).toEqual(['a', 'b', 'c']);
    expect(r1.status!.billing!.map((b) => b.sandboxName).sort()).toEqual(['a', 'b', 'c']);

    await createRun(env(), 'kl', 'r2');
    const r2 = await phase('r2', ['COMPLETED', 'ERROR'], 120_000);
    expect(r2.status!.phase).toBe('COMPLETED');
  }, 300_000);
});
