import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { Run } from '@sandflow/crds';
import type { ArgoWorkflow } from '@sandflow/kube';
import { chain, createRun, patchRun, startEnv, until, type Env } from '@sandflow/embedded/testing';

let env: Env;
beforeAll(async () => {
  env = await startEnv();
  await chain(env, 'acts', {
    a: 'sleep 1',
    b: 'if [ -f /sandflow/b-ok ]; then exit 0; fi; exit 1',
    c: 'true',
  });
  await chain(env, 'slow', { a: 'sleep 2', b: 'sleep 0.2', c: 'true' });
  await chain(env, 'race', {
    a: 'sleep 0.3',
    b: 'if [ -f /sandflow/b-ok ]; then exit 0; fi; exit 1',
    c: 'sleep 0.3',
    d: 'sleep 0.3',
    e: 'sleep 30',
  });
});
afterAll(async () => env?.close());

const phase = (ns: string, name: string, want: string | string[]) =>
  until(async () => {
    const r = await env.getRun(ns, name);
    return ([] as string[]).concat(want).includes(r.status?.phase ?? '') ? r : undefined;
  }, 30_000);
const statuses = (r: Run) =>
  Object.fromEntries((r.status?.sandboxStatuses ?? []).map((s) => [s.name, s.status]));
const refusal = (r: Run) => r.status?.conditions?.find((c) => c.type === 'ActionAccepted');
const handledLater = async (ns: string, name: string, check: (r: Run) => boolean) =>
  until(async () => {
    const r = await env.getRun(ns, name);
    return check(r) ? r : undefined;
  }, 15_000);

describe('run actions', () => {
  it('pause from RUNNING, resume from PAUSED', async () => {
    await createRun(env, 'slow', 'p1');
    await phase('slow', 'p1', 'RUNNING');
    await patchRun(env, 'slow', 'p1', { suspend: true });
    let r = await phase('slow', 'p1', 'PAUSED');
    await new Promise((res) => setTimeout(res, 2500)); // a finishes; nothing new starts while paused
    r = await env.getRun('slow', 'p1');
    expect(r.status!.phase).toBe('PAUSED');
    expect(statuses(r)).toMatchObject({ a: 'COMPLETED', b: 'PAUSED', c: 'PAUSED' });
    await patchRun(env, 'slow', 'p1', { suspend: false });
    r = await phase('slow', 'p1', 'COMPLETED');
    expect(r.status!.history!.map((h) => h.action)).toEqual(
      expect.arrayContaining(['pause', 'PAUSED', 'resume', 'COMPLETED']),
    );
  });

  it('stop from RUNNING → STOPPED; then pause, resume, stop and retry are refused, restart is allowed', async () => {
    await createRun(env, 'slow', 's1');
    await phase('slow', 's1', 'RUNNING');
    await patchRun(env, 'slow', 's1', { stop: true });
    let r = await phase('slow', 's1', 'STOPPED');
    expect(statuses(r).a).toBe('STOPPED');
    expect(r.status!.stopTime).toBeTruthy();
    await patchRun(env, 'slow', 's1', { suspend: true });
    r = await handledLater('slow', 's1', (x) => refusal(x)?.reason === 'PauseRefused');
    expect(refusal(r)).toMatchObject({
      status: 'False',
      message: expect.stringContaining('while the run is STOPPED'),
    });
    await patchRun(env, 'slow', 's1', { retry: 1 });
    r = await handledLater('slow', 's1', (x) => refusal(x)?.reason === 'RetryRefused');
    expect(r.status!.phase).toBe('STOPPED');
    await patchRun(env, 'slow', 's1', { restart: 1, stop: false, suspend: false });
    r = await handledLater('slow', 's1', (x) => x.status?.argoWorkflow === 's1-r1');
    r = await phase('slow', 's1', 'COMPLETED');
    expect(statuses(r)).toEqual({ a: 'COMPLETED', b: 'COMPLETED', c: 'COMPLETED' });
  });

  it('a failing step → ERROR; retry from ERROR reruns the failed nodes; restart_from reruns from a sandbox', async () => {
    await createRun(env, 'acts', 'f1');
    let r = await phase('acts', 'f1', 'ERROR');
    expect(statuses(r)).toEqual({ a: 'COMPLETED', b: 'ERROR', c: 'SKIPPING' });
    // refused: pause and resume from ERROR
    await patchRun(env, 'acts', 'f1', { suspend: true });
    r = await handledLater('acts', 'f1', (x) => refusal(x)?.reason === 'PauseRefused');
    await patchRun(env, 'acts', 'f1', { suspend: false });
    r = await handledLater('acts', 'f1', (x) => refusal(x)?.reason === 'ResumeRefused');
    // make b succeed, then retry
    const fs = await import('node:fs');
    const path = await import('node:path');
    const shared = path.join(env.dataDir, 'runs', 'acts', r.status!.argoWorkflow!, 'shared');
    fs.mkdirSync(shared, { recursive: true });
    fs.writeFileSync(path.join(shared, 'b-ok'), '');
    const aStart = (await env.getRun('acts', 'f1')).status!.sandboxStatuses!.find(
      (s) => s.name === 'a',
    )!.startTime;
    await patchRun(env, 'acts', 'f1', { retry: 1 });
    r = await phase('acts', 'f1', 'COMPLETED');
    expect(statuses(r)).toEqual({ a: 'COMPLETED', b: 'COMPLETED', c: 'COMPLETED' });
    expect(r.status!.sandboxStatuses!.find((s) => s.name === 'a')!.startTime).toBe(aStart); // a was not rerun
    expect(r.status!.stopTime).toBeTruthy();
    // restart_from b: b and c run again, a does not
    await patchRun(env, 'acts', 'f1', { restartFrom: { sandbox: 'b', request: 1 } });
    r = await handledLater(
      'acts',
      'f1',
      (x) => x.status?.history?.some((h) => h.action === 'restart_from') ?? false,
    );
    r = await phase('acts', 'f1', 'COMPLETED');
    expect(r.status!.sandboxStatuses!.find((s) => s.name === 'a')!.startTime).toBe(aStart);
    expect(r.status!.billing!.filter((b) => b.sandboxName === 'c')).toHaveLength(2);
  });
});

const ARGO = { group: 'argoproj.io', version: 'v1alpha1', plural: 'workflows' };
const argoWorkflow = async (ns: string, name: string) =>
  (await env.api.getNamespacedCustomObject({ ...ARGO, namespace: ns, name })) as ArgoWorkflow;
const TICK = 'test.sandflow.io/tick-';
const ticksOf = (wf: ArgoWorkflow) =>
  Object.keys(wf.metadata.annotations ?? {})
    .filter((k) => k.startsWith(TICK))
    .map((k) => Number(k.slice(TICK.length)))
    .sort((a, b) => a - b);

/**
 * Another writer of the Argo workflow, adding an annotation tick-1, tick-2, … about every 10 ms until
 * stopped: every status write (the runner's, the operator's retry) races one of these, and one that
 * overwrote the object from a stale copy would leave a gap. Stopping it answers how many it wrote.
 */
function ticker(ns: string, name: string) {
  let written = 0;
  let stopped = false;
  const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
  const loop = (async () => {
    while (!stopped) {
      const body = { metadata: { annotations: { [`${TICK}${written + 1}`]: 'x' } } };
      await env.api.patchNamespacedCustomObject({ ...ARGO, namespace: ns, name, body }, merge);
      written += 1;
      await new Promise((res) => setTimeout(res, 10));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
      return written;
    },
  };
}

describe('actions while the runner writes status (Argo has no status subresource)', () => {
  it('retry, pause, resume and stop all take effect, and no concurrent write to the workflow is lost', async () => {
    await createRun(env, 'race', 'w1');
    const wfName = (await handledLater('race', 'w1', (x) => Boolean(x.status?.argoWorkflow))).status!
      .argoWorkflow!;
    await until(() => argoWorkflow('race', wfName));
    const ticks = ticker('race', wfName);
    let last = 0;
    try {
      let r = await phase('race', 'w1', 'ERROR');
      expect(statuses(r)).toMatchObject({ a: 'COMPLETED', b: 'ERROR' });
      const fs = await import('node:fs');
      const path = await import('node:path');
      const shared = path.join(env.dataDir, 'runs', 'race', wfName, 'shared');
      fs.mkdirSync(shared, { recursive: true });
      fs.writeFileSync(path.join(shared, 'b-ok'), '');

      // retry: the operator's reset of the nodes is an update of the whole workflow
      await patchRun(env, 'race', 'w1', { retry: 1 });
      await handledLater('race', 'w1', (x) => statuses(x).b === 'COMPLETED');

      // pause while c and d run one after the other and the runner writes their status
      await patchRun(env, 'race', 'w1', { suspend: true });
      r = await phase('race', 'w1', 'PAUSED');
      expect((await argoWorkflow('race', wfName)).spec.suspend).toBe(true);
      await new Promise((res) => setTimeout(res, 1500)); // the running step ends; nothing new starts
      r = await env.getRun('race', 'w1');
      expect(r.status!.phase).toBe('PAUSED');
      expect(statuses(r).e).toBe('PAUSED');
      expect((await argoWorkflow('race', wfName)).spec.suspend).toBe(true);

      await patchRun(env, 'race', 'w1', { suspend: false });
      await handledLater('race', 'w1', (x) => statuses(x).e === 'RUNNING');
      await patchRun(env, 'race', 'w1', { stop: true });
      r = await phase('race', 'w1', 'STOPPED');
      expect(statuses(r)).toEqual({
        a: 'COMPLETED',
        b: 'COMPLETED',
        c: 'COMPLETED',
        d: 'COMPLETED',
        e: 'STOPPED',
      });
      expect(r.status!.history!.map((h) => h.action)).toEqual(
        expect.arrayContaining(['retry', 'pause', 'resume', 'stop']),
      );
      const wf = await argoWorkflow('race', wfName);
      expect(wf.spec.shutdown).toBe('Stop');
      expect(wf.status!.phase).toBe('Failed');
    } finally {
      last = await ticks.stop();
    }
    // Every write the other writer made survived the status writes it raced.
    expect(last).toBeGreaterThan(10);
    expect(ticksOf(await argoWorkflow('race', wfName))).toEqual(
      Array.from({ length: last }, (_, i) => i + 1),
    );
  });
});
