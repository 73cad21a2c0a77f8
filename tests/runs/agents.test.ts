// Issue 16's multi-cluster test bed: the platform (in this process) and THREE agents, each a separate
// `sandflow agent` process with its own data folder, kube-lite and runner, offering 2, 3 and 4 cores
// (--cpu). Real runs of one-step workflows (process runtime) show what scheduling does across them:
// fill_one packs, fill_all spreads to the most free, round_robin rotates, a manager the organization
// disabled gets nothing, the session's preference wins, a run that fits nowhere waits QUEUED; an agent
// killed mid-run turns its run ERROR after the (short) lost timeout, the retry completes on another
// manager, and the killed agent, restarted with the same token and data folder, runs nothing twice.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '@sandflow/embedded/testing';
import { ANNOTATIONS } from '@sandflow/kube';
import {
  connected,
  logsContaining,
  runOf,
  sandboxFlow,
  startBed,
  startSession,
  statusOf,
  type AgentProcess,
  type Bed,
} from '../support/agents.js';

const LOST_MS = 4000;
/** What every step of the scheduling cases asks: one core. */
const STEP = { cpu: 1000, memory: 64, disk: 64 };
const CORES = [2, 3, 4];

let bed: Bed;
/** The three cluster managers in name order (the order fill_one and round_robin go by). */
let names: string[] = [];
const tokens: Record<string, string> = {};
const agents: Record<string, AgentProcess> = {};
const flows: Record<string, string> = {};
let counter: string;

beforeAll(async () => {
  bed = await startBed({ lostMs: LOST_MS, groupQuota: { cpu: 50_000, memory: 50_000, disk: 50_000 } });
  counter = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sandflow-bed-')), 'executions');
  flows.hold = await sandboxFlow(bed, 'hold', 'sleep 120', STEP);
  flows.quick = await sandboxFlow(bed, 'quick', 'echo quick-step', STEP);
  flows.huge = await sandboxFlow(bed, 'huge', 'echo never', { cpu: 5000, memory: 64, disk: 64 });
  // Each execution of this step leaves a line in `counter` and a marker in its log.
  flows.counted = await sandboxFlow(
    bed,
    'counted',
    `echo "$SANDFLOW_RUN" >> ${counter}; echo counted-step-ran; sleep 6`,
    STEP,
  );
  for (let i = 0; i < 3; i++) {
    const created = await bed.call(bed.world.a.orgAdmin, 'POST', '/cluster', {});
    expect(created.status).toBe(201);
    tokens[created.body.result.id] = created.body.result.token;
  }
  names = Object.keys(tokens).sort((a, b) => a.localeCompare(b));
  names.forEach((name, i) => {
    agents[name] = bed.startAgent(tokens[name]!, undefined, [
      '--cpu',
      String(CORES[i]! * 1000),
      '--memory',
      '4096',
      '--disk',
      '10000',
    ]);
  });
  await Promise.all(names.map((name) => connected(bed, name, agents[name]!, 150_000)));
  // The platform's own cluster manager stays out: scheduling here is across the three agents.
  const off = await bed.call(
    bed.world.a.orgAdmin,
    'PUT',
    `/organizations/${bed.world.a.org.id}/disable/platform`,
  );
  expect(off.status).toBe(200);
  await disabledSeen('platform', true);
}, 240_000);

afterAll(async () => {
  await bed?.close();
  if (counter) fs.rmSync(path.dirname(counter), { recursive: true, force: true });
}, 60_000);

const A = () => names[0]!;
const B = () => names[1]!;
const C = () => names[2]!;
const orgNamespace = () => `sf-${bed.world.a.org.slug}`;

/** The organization's algorithm through the API, once the operator can read it (the namespace annotation). */
async function algorithm(name: 'fill_one' | 'fill_all' | 'round_robin') {
  const res = await bed.call(bed.world.a.orgAdmin, 'PUT', `/organizations/${bed.world.a.org.id}/algorithm`, {
    algorithm: name,
  });
  expect(res.status).toBe(200);
  expect(res.body.result.algorithm).toBe(name);
  const core = bed.env.kc.makeApiClient(CoreV1Api);
  await until(async () => {
    const ns = await core.readNamespace({ name: orgNamespace() });
    return ns.metadata?.annotations?.[ANNOTATIONS.schedulerAlgorithm] === name;
  }, 10_000);
  // The operator's namespace cache has it once a round of admissions would see it.
  await new Promise((r) => setTimeout(r, 500));
}

/** The cluster manager's disabledOrganizations as the operator's cache will see it. */
async function disabledSeen(cm: string, disabled: boolean) {
  await until(async () => {
    const obj = (await bed.env.api.getClusterCustomObject({
      group: 'sandflow.io',
      version: 'v1alpha1',
      plural: 'clustermanagers',
      name: cm,
    })) as { spec: { disabledOrganizations?: string[] } };
    return (obj.spec.disabledOrganizations ?? []).includes(bed.world.a.org.id) === disabled;
  }, 10_000);
}

/** Starts a run and answers it with the cluster manager it was placed on, once it reached `phase`. */
async function placed(flow: string, phase = 'RUNNING', prefer?: string) {
  const run = await startSession(bed, flows[flow]!, {
    ...(prefer ? { prefer } : {}),
    // A step left Running by a killed agent is retried by a runner that finds it again: the counted
    // step gets a second attempt, so a restarted agent that ran what moved away would show it.
    ...(flow === 'counted' ? { attempts: 2 } : {}),
  });
  await statusOf(bed, run, phase, 90_000);
  return { run, cm: (await runOf(bed, run)).status?.clusterManager };
}

async function stopAll(runs: string[]) {
  for (const run of runs) {
    const res = await bed.call(bed.world.a.target, 'PUT', `/run/${run}`, { action: 'stop' });
    expect(res.status).toBe(200);
  }
  for (const run of runs) await statusOf(bed, run, 'STOPPED', 60_000);
}

describe('three agents, one platform', () => {
  it('fill_one packs onto the first manager until it is full', async () => {
    await algorithm('fill_one');
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await placed('hold'));
    // A offers 2 cores: two one-core steps fill it, the third goes to B.
    expect(runs.map((r) => r.cm)).toEqual([A(), A(), B()]);
    await stopAll(runs.map((r) => r.run));
  }, 240_000);

  it('fill_all spreads each run to the manager with the most free', async () => {
    await algorithm('fill_all');
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await placed('hold'));
    // Free cores 2/3/4 → C; then 2/3/3 → B (a cpu tie; B has more memory free) → 2/2/3 → C.
    expect(runs.map((r) => r.cm)).toEqual([C(), B(), C()]);
    await stopAll(runs.map((r) => r.run));
  }, 240_000);

  it('round_robin rotates through the three', async () => {
    await algorithm('round_robin');
    const picks = [];
    for (let i = 0; i < 4; i++) picks.push((await placed('quick', 'COMPLETED')).cm!);
    const at = picks.map((p) => names.indexOf(p));
    expect(at.every((i) => i >= 0)).toBe(true);
    for (let i = 1; i < at.length; i++) expect(at[i]).toBe((at[i - 1]! + 1) % 3);
    // Each agent ran its share in its own runner.
    for (const name of names) expect(logsContaining(agents[name]!.dir, 'quick-step')).not.toEqual([]);
  }, 240_000);

  it('gives nothing to a manager the organization disabled', async () => {
    const path_ = `/organizations/${bed.world.a.org.id}/disable/${B()}`;
    expect((await bed.call(bed.world.a.orgAdmin, 'PUT', path_)).status).toBe(200);
    await disabledSeen(B(), true);
    const picks = [];
    for (let i = 0; i < 4; i++) picks.push((await placed('quick', 'COMPLETED')).cm);
    expect(picks).not.toContain(B());
    expect(new Set(picks)).toEqual(new Set([A(), C()]));
    expect((await bed.call(bed.world.a.orgAdmin, 'DELETE', path_)).status).toBe(200);
    await disabledSeen(B(), false);
  }, 240_000);

  it("honours the session's cluster preference over the algorithm", async () => {
    await algorithm('fill_one');
    const { cm } = await placed('quick', 'COMPLETED', C());
    expect(cm).toBe(C()); // fill_one alone would have chosen A
  }, 120_000);

  it('keeps a run that fits on no manager QUEUED', async () => {
    const run = await startSession(bed, flows.huge!);
    const queued = await statusOf(bed, run, 'QUEUED', 60_000);
    expect(queued.status).toBe('QUEUED');
    await new Promise((r) => setTimeout(r, 3000)); // several queued retries later: still waiting
    const still = await runOf(bed, run);
    expect(still.status).toMatchObject({
      phase: 'QUEUED',
      message: 'no cluster manager has enough free resources',
    });
    expect(still.status?.clusterManager).toBeUndefined();
    await stopAll([run]);
  }, 120_000);

  let killedRun = '';
  it('turns a killed agent’s run ERROR after the lost timeout; the retry completes on another manager', async () => {
    await algorithm('fill_one');
    const { run, cm } = await placed('counted');
    killedRun = run;
    expect(cm).toBe(A());
    await until(() => fs.existsSync(counter) && fs.readFileSync(counter, 'utf8').includes(run), 30_000);
    const killedAt = Date.now();
    await agents[A()]!.kill();
    const failed = await statusOf(bed, run, 'ERROR', 60_000);
    // Counted from its last heartbeat, which came at most one beat before the kill.
    expect(Date.now() - killedAt).toBeGreaterThanOrEqual(LOST_MS - bed.hub.heartbeatMs);
    const lost = await runOf(bed, run);
    expect(lost.status?.clusterManager).toBe(A());
    expect(JSON.stringify(failed) + JSON.stringify(lost.status)).toContain(`cluster manager ${A()} lost`);
    // A is closed now (its lastSeen is older than the lost timeout): the retry goes elsewhere.
    await until(async () => {
      const cm = (await bed.env.api.getClusterCustomObject({
        group: 'sandflow.io',
        version: 'v1alpha1',
        plural: 'clustermanagers',
        name: A(),
      })) as { status?: { alive?: boolean; connection?: string } };
      return cm.status?.alive === false && cm.status.connection === 'closed';
    }, 30_000);
    const retried = await bed.call(bed.world.a.target, 'PUT', `/run/${run}`, { action: 'retry' });
    expect(retried.status).toBe(200);
    await statusOf(bed, run, 'COMPLETED', 90_000);
    expect((await runOf(bed, run)).status?.clusterManager).toBe(B());
    expect(logsContaining(agents[B()]!.dir, 'counted-step-ran')).toHaveLength(1);
    expect(executions(run)).toBe(2); // once on A before the kill, once on B
  }, 240_000);

  it('runs nothing twice when the killed agent comes back with the same token and data folder', async () => {
    expect(killedRun).not.toBe('');
    const dir = agents[A()]!.dir;
    expect(logsContaining(dir, 'counted-step-ran')).toHaveLength(1);
    agents[A()] = bed.startAgent(tokens[A()]!, dir, ['--cpu', '2000', '--memory', '4096', '--disk', '10000']);
    await connected(bed, A(), agents[A()]!, 150_000);
    // The platform tells it to drop the workflow that moved to B before its runner starts.
    await until(() => agents[A()]!.output().includes('deleting a workflow'), 30_000);
    await new Promise((r) => setTimeout(r, 8000)); // longer than the step: a second execution would show
    expect(executions(killedRun)).toBe(2);
    expect(logsContaining(dir, 'counted-step-ran')).toHaveLength(1);
    const run = await runOf(bed, killedRun);
    expect(run.status).toMatchObject({ phase: 'COMPLETED', clusterManager: B() });
  }, 240_000);
});

/** Lines the counted step wrote for `run` (one per execution, on any agent). */
function executions(run: string) {
  if (!fs.existsSync(counter)) return 0;
  return fs
    .readFileSync(counter, 'utf8')
    .split('\n')
    .filter((l) => l.includes(run)).length;
}
