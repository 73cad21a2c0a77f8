// The operator restarted under load never admits a run over quota: every Run status change is
// watched and the resources held by admitted runs are summed after each one, for the group and per
// user, across a graceful restart and a crash (lease left held) while runs keep being created.
import { CoreV1Api, PatchStrategy, Watch, setHeaderOptions } from '@kubernetes/client-node';
import type { Run } from '@sandflow/crds';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chain, createRun, startEnv, until, type Env } from '@sandflow/embedded/testing';

const NS = 'restart';
const CPU = 100; // millicores each run holds while admitted
const GROUP_CPU = 300; // the group's quota: three runs at a time
const USER_CPU = { u1: 200, u2: 300 }; // u1: two runs at a time
const HOLDING = new Set(['INIT', 'RUNNING', 'PAUSED']);
const FINAL = new Set(['COMPLETED', 'ERROR', 'STOPPED']);

let env: Env;
beforeAll(async () => {
  env = await startEnv();
});
afterAll(async () => env?.close());

/** Watches the namespace's runs and keeps the highest admitted totals seen after any change. */
async function watchAdmissions() {
  const phases = new Map<string, { phase: string; owner: string }>();
  const peak = { group: 0, u1: 0, u2: 0 };
  const changes: string[] = [];
  const request = await new Watch(env.kc).watch(
    `/apis/sandflow.io/v1alpha1/namespaces/${NS}/runs`,
    {},
    (type: string, run: Run) => {
      const name = run.metadata.name!;
      if (type === 'DELETED') phases.delete(name);
      else phases.set(name, { phase: run.status?.phase ?? 'WAITING', owner: run.spec.owner ?? '' });
      const held = [...phases.values()].filter((r) => HOLDING.has(r.phase));
      const group = held.length * CPU;
      const u1 = held.filter((r) => r.owner === 'u1').length * CPU;
      const u2 = held.filter((r) => r.owner === 'u2').length * CPU;
      changes.push(`${name} ${run.status?.phase ?? '-'} → group ${group}m, u1 ${u1}m, u2 ${u2}m`);
      peak.group = Math.max(peak.group, group);
      peak.u1 = Math.max(peak.u1, u1);
      peak.u2 = Math.max(peak.u2, u2);
    },
    () => undefined,
  );
  return { peak, changes, phases, stop: () => request.abort() };
}

describe('operator restart under load', () => {
  it('admits no run over the group or user quota while restarting, and every run completes', async () => {
    await chain(env, NS, { a: 'sleep 1' }, { cpu: CPU, quotaCpu: `${GROUP_CPU}m` });
    await env.kc.makeApiClient(CoreV1Api).patchNamespace(
      {
        name: NS,
        body: {
          metadata: {
            annotations: {
              'sandflow.io/user-quotas': JSON.stringify({
                u1: { cpu: USER_CPU.u1 },
                u2: { cpu: USER_CPU.u2 },
              }),
            },
          },
        },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    const watch = await watchAdmissions();
    let n = 0;
    const create = async (count: number) => {
      for (let i = 0; i < count; i++) {
        const k = n++;
        await createRun(env, NS, `r${k}`, k % 3 === 0 ? 'u2' : 'u1');
      }
    };
    try {
      await create(8);
      await until(() => watch.peak.group >= GROUP_CPU || undefined, 30_000);

      // Graceful restart (the lease is released) while runs hold the quota and more arrive.
      const arriving = create(4);
      await env.operator.stop();
      env.operator = await env.startOperator();
      await arriving;

      // A crash: the lease stays held until it expires, runs are created meanwhile.
      await until(() => [...watch.phases.values()].some((r) => HOLDING.has(r.phase)) || undefined, 30_000);
      await env.operator.stop({ release: false });
      const during = create(4);
      env.operator = await env.startOperator();
      await during;

      await until(
        () =>
          (watch.phases.size === n && [...watch.phases.values()].every((r) => FINAL.has(r.phase))) ||
          undefined,
        120_000,
      );
    } finally {
      watch.stop();
    }
    const report = watch.changes.join('\n');
    expect(watch.peak.group, report).toBeLessThanOrEqual(GROUP_CPU);
    expect(watch.peak.u1, report).toBeLessThanOrEqual(USER_CPU.u1);
    expect(watch.peak.u2, report).toBeLessThanOrEqual(USER_CPU.u2);
    // The quota was the limit (runs waited for it), not the load.
    expect(watch.peak.group).toBe(GROUP_CPU);
    expect([...watch.phases.values()].map((r) => r.phase)).toEqual(Array(n).fill('COMPLETED'));
  });
});
