import { CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Run } from '@sandflow/crds';
import { chain, createRun, patchRun, startEnv, until, type Env } from '@sandflow/embedded/testing';

let env: Env;
beforeAll(async () => {
  env = await startEnv();
});
afterAll(async () => env?.close());

const phase = (ns: string, name: string, want: string) =>
  until(async () => {
    const r = await env.getRun(ns, name);
    return r.status?.phase === want ? r : undefined;
  }, 30_000);

describe('faults', () => {
  it('an operator killed mid-run and started again: no duplicate Argo workflow, the run converges', async () => {
    await chain(env, 'crash', { a: 'sleep 1.5', b: 'true', c: 'true' });
    await createRun(env, 'crash', 'r1');
    await phase('crash', 'r1', 'RUNNING');
    await env.operator.stop({ release: false }); // the lease stays held, as after a crash
    env.operator = await env.startOperator();
    const r = await phase('crash', 'r1', 'COMPLETED');
    expect(r.status!.history!.filter((h) => h.action === 'INIT')).toHaveLength(1);
    const wfs = (await env.api.listNamespacedCustomObject({
      group: 'argoproj.io',
      version: 'v1alpha1',
      plural: 'workflows',
      namespace: 'crash',
    })) as { items: unknown[] };
    expect(wfs.items).toHaveLength(1);
  });

  it('a step that exits non-zero is retried as configured, then the run is ERROR', async () => {
    await chain(
      env,
      'retries',
      { a: 'echo attempt >> /sandflow/attempts; exit 7', b: 'true', c: 'true' },
      { attempts: 3 },
    );
    await createRun(env, 'retries', 'r1');
    const r: Run = await phase('retries', 'r1', 'ERROR');
    expect(r.status!.sandboxStatuses!.map((s) => s.status)).toEqual(['ERROR', 'SKIPPING', 'SKIPPING']);
    const fs = await import('node:fs');
    const path = await import('node:path');
    const attempts = fs.readFileSync(
      path.join(env.dataDir, 'runs', 'retries', 'r1', 'shared', 'attempts'),
      'utf8',
    );
    expect(attempts.trim().split('\n')).toHaveLength(3);
    expect(r.status!.billing!.filter((b) => b.sandboxName === 'a')).toHaveLength(3);
  });

  it('quota exhausted → QUEUED, then RUNNING when the earlier run ends', async () => {
    await chain(env, 'quota', { a: 'sleep 1', b: 'true', c: 'true' }, { cpu: 500, quotaCpu: '800m' });
    await createRun(env, 'quota', 'q1');
    await phase('quota', 'q1', 'RUNNING');
    await createRun(env, 'quota', 'q2');
    const queued = await phase('quota', 'q2', 'QUEUED');
    expect(queued.status!.message).toMatch(/cpu quota exhausted/);
    await phase('quota', 'q1', 'COMPLETED');
    const done = await phase('quota', 'q2', 'COMPLETED');
    expect(done.status!.history!.map((h) => h.action)).toEqual(
      expect.arrayContaining(['QUEUED', 'INIT', 'COMPLETED']),
    );
    expect(Date.parse(done.status!.startTime!)).toBeGreaterThanOrEqual(
      Date.parse((await env.getRun('quota', 'q1')).status!.stopTime!) - 50,
    );
  });

  it('a QUEUED run starts once its group quota is raised (read from the operator cache)', async () => {
    await chain(env, 'raise', { a: 'sleep 20', b: 'true', c: 'true' }, { cpu: 500, quotaCpu: '800m' });
    await createRun(env, 'raise', 'r1');
    await phase('raise', 'r1', 'RUNNING');
    await createRun(env, 'raise', 'r2');
    await phase('raise', 'r2', 'QUEUED');
    await env.kc.makeApiClient(CoreV1Api).patchNamespacedResourceQuota(
      {
        name: 'sandflow-quota',
        namespace: 'raise',
        body: { spec: { hard: { 'requests.cpu': '1' } } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    const started = await until(async () => {
      const r = await env.getRun('raise', 'r2');
      return ['INIT', 'RUNNING'].includes(r.status?.phase ?? '') ? r : undefined;
    }, 15_000);
    expect(started.status!.clusterManager).toBeTruthy();
    // r1 still holds its 500m: both run at once under the raised quota.
    expect((await env.getRun('raise', 'r1')).status!.phase).toBe('RUNNING');
    for (const name of ['r1', 'r2']) await patchRun(env, 'raise', name, { stop: true });
  });
});
