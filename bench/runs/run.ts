// Runs benchmark (issue 5): kube-lite + operator + local runner in one process.
//  - 200 runs of a 3-step workflow of trivial steps: run creation → first step started (p50, p99),
//    overhead between one step's end and the next step's start (p50, p99), runs completed per minute,
//    memory of the process (operator + runner + kube-lite together: an upper bound for the operator);
//  - one run of a 2,000-node workflow (a fan-out of 2,000 instances): it completes, Run object size.
// Usage: npx tsx bench/runs/run.ts [runs=200] [fanout=2000]
import { CoreV1Api } from '@kubernetes/client-node';
import type { Run } from '@sandflow/crds';
import { chain, createRun } from '../../tests/runs/fixtures.js';
import { listRuns, startEnv, until } from '../../tests/runs/harness.js';

const RUNS = Number(process.argv[2] ?? 200);
const FANOUT = Number(process.argv[3] ?? 2000);
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};
type Node = { name: string; displayName: string; type: string; startedAt?: string; finishedAt?: string };

async function main() {
  const env = await startEnv({
    runner: { capacity: { cpu: 2000, memory: 4096 }, concurrency: 16 },
    operator: { workers: 8, platformResources: { cpu: 1_000_000, memory: 1_000_000, disk: 1_000_000 } },
  });
  await chain(env, 'bench', { a: 'true', b: 'true', c: 'true' }, { cpu: 100 });
  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 200);

  const created = new Map<string, number>();
  const t0 = Date.now();
  for (let i = 0; i < RUNS; i++) {
    const name = `r${i}`;
    created.set(name, Date.now());
    await createRun(env, 'bench', name);
  }
  const runs = await until(
    async () => {
      const l = await listRuns(env, 'bench');
      const done = l.filter((r) => ['COMPLETED', 'ERROR', 'STOPPED'].includes(r.status?.phase ?? ''));
      return done.length === RUNS ? l : undefined;
    },
    600_000,
    500,
  );
  const wall = Date.now() - t0;
  const firstStep: number[] = [];
  const overhead: number[] = [];
  let completedAt = 0;
  let errors = 0;
  for (const r of runs) {
    if (r.status?.phase !== 'COMPLETED') errors++;
    const wf = (await env.api.getNamespacedCustomObject({
      group: 'argoproj.io',
      version: 'v1alpha1',
      plural: 'workflows',
      namespace: 'bench',
      name: r.status!.argoWorkflow!,
    })) as {
      status: { finishedAt: string; nodes: Record<string, Node> };
    };
    const pods = Object.values(wf.status.nodes)
      .filter((n) => n.type === 'Pod')
      .sort((x, y) => Date.parse(x.startedAt!) - Date.parse(y.startedAt!));
    firstStep.push(Date.parse(pods[0]!.startedAt!) - created.get(r.metadata.name!)!);
    for (let i = 1; i < pods.length; i++)
      overhead.push(Date.parse(pods[i]!.startedAt!) - Date.parse(pods[i - 1]!.finishedAt!));
    completedAt = Math.max(completedAt, Date.parse(wf.status.finishedAt));
  }
  const perMinute = (RUNS / (completedAt - t0)) * 60_000;
  console.log(
    JSON.stringify(
      {
        runs: RUNS,
        errors,
        wallSeconds: wall / 1000,
        firstStepMs: { p50: pct(firstStep, 50), p99: pct(firstStep, 99) },
        stepToStepMs: { p50: pct(overhead, 50), p99: pct(overhead, 99) },
        runsPerMinute: Math.round(perMinute),
        peakRssMB: Math.round(peakRss / 1048576),
      },
      null,
      1,
    ),
  );

  // One 2,000-node workflow: a → 2,000 static instances of b → c.
  const core = env.kc.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: 'big' } } }).catch(() => undefined);
  await chain(env, 'big-ns', { a: 'true', b: 'true', c: 'true' }, { cpu: 50 });
  await env.api.patchNamespacedCustomObject(
    {
      group: 'sandflow.io',
      version: 'v1alpha1',
      plural: 'workflows',
      namespace: 'big-ns',
      name: 'wf',
      body: [
        {
          op: 'replace',
          path: '/spec/edges/0',
          value: { id: 'e0', from: 'a', to: 'b', type: 'multi', instanceNumber: FANOUT },
        },
      ],
    },
    (await import('@kubernetes/client-node')).setHeaderOptions(
      'Content-Type',
      (await import('@kubernetes/client-node')).PatchStrategy.JsonPatch,
    ),
  );
  const t1 = Date.now();
  await createRun(env, 'big-ns', 'big');
  const big = await until(
    async () => {
      const r = await env.getRun('big-ns', 'big');
      return ['COMPLETED', 'ERROR', 'STOPPED'].includes(r.status?.phase ?? '') ? r : undefined;
    },
    900_000,
    1000,
  );
  const wfBig = await env.api.getNamespacedCustomObject({
    group: 'argoproj.io',
    version: 'v1alpha1',
    plural: 'workflows',
    namespace: 'big-ns',
    name: big.status!.argoWorkflow!,
  });
  clearInterval(sampler);
  const b = big as Run;
  console.log(
    JSON.stringify(
      {
        fanout: FANOUT,
        phase: b.status!.phase,
        seconds: (Date.now() - t1) / 1000,
        instances: b.status!.sandboxStatuses!.find((s) => s.name === 'b')!.subSandboxes!.length,
        runObjectKB: Math.round(Buffer.byteLength(JSON.stringify(b)) / 1024),
        argoWorkflowObjectKB: Math.round(Buffer.byteLength(JSON.stringify(wfBig)) / 1024),
        peakRssMB: Math.round(peakRss / 1048576),
      },
      null,
      1,
    ),
  );
  await env.close();
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
