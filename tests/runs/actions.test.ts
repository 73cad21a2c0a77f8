import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Run } from '@sandflow/crds';
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
