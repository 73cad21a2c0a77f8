// Spec 2 §3 "History entry: username or sandbox, action, time": the operator credits each action to
// who asked it (spec.requestedBy, which the API writes with the action), not to the run's owner.
import type { Run } from '@sandflow/crds';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chain, createRun, patchRun, startEnv, until, type Env } from '@sandflow/embedded/testing';

const NS = 'history';
let env: Env;
beforeAll(async () => {
  env = await startEnv();
  await chain(env, NS, { a: 'sleep 2', b: 'exit 1', c: 'true' });
});
afterAll(async () => env?.close());

const when = (name: string, check: (r: Run) => boolean) =>
  until(async () => {
    const r = await env.getRun(NS, name);
    return check(r) ? r : undefined;
  }, 30_000);
const phase = (name: string, want: string) => when(name, (r) => r.status?.phase === want);
/** The entries made by someone: [who, action]. */
const byUsers = (r: Run) =>
  (r.status?.history ?? []).filter((h) => h.username).map((h) => [h.username, h.action]);

describe('who did what in the history of a run', () => {
  it("A's run: paused by C, resumed by A, retried by B — each entry names who asked", async () => {
    await createRun(env, NS, 'h1', 'user-a');
    await phase('h1', 'RUNNING');
    await patchRun(env, NS, 'h1', { suspend: true, requestedBy: { suspend: 'user-c' } });
    await phase('h1', 'PAUSED');
    await patchRun(env, NS, 'h1', { suspend: false, requestedBy: { suspend: 'user-a' } });
    await phase('h1', 'ERROR'); // b fails
    await patchRun(env, NS, 'h1', { retry: 1, requestedBy: { retry: 'user-b' } });
    const r = await when('h1', (x) => x.status?.history?.some((h) => h.action === 'retry') ?? false);
    expect(r.spec.owner).toBe('user-a');
    expect(byUsers(r)).toEqual([
      ['user-a', 'created'],
      ['user-c', 'pause'],
      ['user-a', 'resume'],
      ['user-b', 'retry'],
    ]);
  });

  it.each<[string, Run['spec']['requestedBy'], string]>([
    ['B (asked through the API)', { stop: 'user-b' }, 'user-b'],
    ['the owner when nobody is named (kubectl)', undefined, 'user-a'],
  ])('a stop asked before admission is credited to %s', async (_, requestedBy, who) => {
    const name = requestedBy ? 's-named' : 's-unnamed';
    await env.api.createNamespacedCustomObject({
      group: 'sandflow.io',
      version: 'v1alpha1',
      plural: 'runs',
      namespace: NS,
      body: {
        apiVersion: 'sandflow.io/v1alpha1',
        kind: 'Run',
        metadata: { name, labels: { 'sandflow.io/organization': 'org' } },
        spec: {
          session: 'sess',
          owner: 'user-a',
          trigger: 'manual',
          stop: true,
          ...(requestedBy ? { requestedBy } : {}),
        },
      },
    });
    const r = await phase(name, 'STOPPED');
    expect(byUsers(r)).toEqual([[who, 'stop']]);
  });
});
