// Runs benchmark (issue 5): kube-lite + local runner in this process, the operator in a child process
// (so its memory is measured on its own; OPERATOR=inproc keeps it in this process as `npm start` does).
//  - latency: RUNS runs of a 3-step workflow of trivial steps created at a steady RATE (runs/s, one every
//    1/RATE s): run creation → first step started (p50, p99), one step's end → next step's start (p50, p99);
//  - throughput: RUNS runs created in one burst: runs completed per minute;
//  - memory: peak RSS and heap used of the operator process, peak RSS of this process;
//  - one run of a 2,000-node workflow (a fan-out of 2,000 instances): it completes, Run object size.
// Usage: npx tsx bench/runs/run.ts [runs=200] [rate=2] [fanout=2000]   (fanout=0 skips the big run)
// SANDFLOW_RUNTIME=bwrap runs the steps on the bwrap runtime, in the busybox-static image of hack/images
// staged in the pull cache under the name the workflow's sandboxes give (alpine:3.20).
import { fork, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CoreV1Api } from '@kubernetes/client-node';
import type { Run } from '@sandflow/crds';
import { chain, createRun, listRuns, startEnv, until, type Env } from '@sandflow/embedded/testing';
import { BUSYBOX_REFERENCE, LayoutStore, buildBusyboxImage, copyImage } from '@sandflow/images';

const RUNS = Number(process.argv[2] ?? 200);
const RATE = Number(process.argv[3] ?? 2);
const FANOUT = Number(process.argv[4] ?? 2000);
const INPROC = process.env.OPERATOR === 'inproc';
const RUNTIME = process.env.SANDFLOW_RUNTIME === 'bwrap' ? 'bwrap' : 'process';

/** The busybox image as docker.io/library/alpine:3.20 in the runner's pull cache (no registry here). */
async function stageImage(env: Env) {
  const built = await buildBusyboxImage(path.join(env.dataDir, 'hack-images'));
  await copyImage({
    from: new LayoutStore(built.oci),
    fromRepository: BUSYBOX_REFERENCE.split(':')[0]!,
    reference: 'latest',
    to: new LayoutStore(path.join(env.dataDir, 'images')),
    toRepository: 'docker.io/library/alpine',
    tag: '3.20',
  });
}
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};
type Node = { name: string; displayName: string; type: string; startedAt?: string; finishedAt?: string };
const MB = (b: number) => Math.round(b / 1048576);
const operatorOptions = {
  workers: 8,
  platformResources: { cpu: 1_000_000, memory: 1_000_000, disk: 1_000_000 },
  leaseDurationSeconds: 3,
  heartbeatMs: 2000,
  queuedRetryMs: 1000,
};
const opMem = { rss: 0, heapUsed: 0 };
let peakRss = 0;

async function startChildOperator(env: Env): Promise<ChildProcess> {
  await env.operator.stop(); // releases the Lease: the child takes over at once
  const child = fork(
    fileURLToPath(new URL('./operator-child.ts', import.meta.url)),
    [env.kubeconfigPath, JSON.stringify(operatorOptions)],
    {
      // OPERATOR_CPU_PROF=<dir> profiles the operator process too.
      execArgv: [
        '--import',
        'tsx',
        ...(process.env.OPERATOR_CPU_PROF
          ? ['--cpu-prof', `--cpu-prof-dir=${process.env.OPERATOR_CPU_PROF}`]
          : []),
      ],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  );
  child.on('message', (m: { rss: number; heapUsed: number }) => {
    opMem.rss = Math.max(opMem.rss, m.rss);
    opMem.heapUsed = Math.max(opMem.heapUsed, m.heapUsed);
  });
  return child;
}

/** Stops the operator process cleanly (so a --cpu-prof profile gets written). */
async function stopChild(child: ChildProcess | undefined) {
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.send('stop');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/** Creates `names` in `ns` (every `gapMs`, or back to back when 0), waits for all to end, measures. */
async function batch(env: Env, ns: string, count: number, gapMs: number) {
  const created = new Map<string, number>();
  const t0 = Date.now();
  for (let i = 0; i < count; i++) {
    if (gapMs > 0) {
      const due = t0 + i * gapMs;
      if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
    }
    const name = `r${i}`;
    created.set(name, Date.now());
    await createRun(env, ns, name);
  }
  const createSeconds = (Date.now() - t0) / 1000;
  const runs = await until(
    async () => {
      const l = await listRuns(env, ns);
      const done = l.filter((r) => ['COMPLETED', 'ERROR', 'STOPPED'].includes(r.status?.phase ?? ''));
      return done.length === count ? l : undefined;
    },
    900_000,
    250,
  );
  const wall = Date.now() - t0;
  const firstStep: number[] = [];
  const overhead: number[] = [];
  const admitted: number[] = [];
  let completedAt = 0;
  let errors = 0;
  for (const r of runs) {
    if (r.status?.phase !== 'COMPLETED') errors++;
    // The INIT history entry carries the time the operator's admitting reconcile began.
    const init = r.status?.history?.find((h) => h.action === 'INIT');
    if (init?.time) admitted.push(Date.parse(init.time) - created.get(r.metadata.name!)!);
    const wf = (await env.api.getNamespacedCustomObject({
      group: 'argoproj.io',
      version: 'v1alpha1',
      plural: 'workflows',
      namespace: ns,
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
  return {
    runs: count,
    arrivals: gapMs > 0 ? `paced, ${RATE} runs/s (one every ${gapMs} ms)` : 'one burst',
    createSeconds,
    errors,
    wallSeconds: wall / 1000,
    firstStepMs: {
      p50: pct(firstStep, 50),
      p90: pct(firstStep, 90),
      p99: pct(firstStep, 99),
      max: pct(firstStep, 100),
    },
    creationToAdmissionStartMs: { p50: pct(admitted, 50), p99: pct(admitted, 99) },
    stepToStepMs: {
      p50: pct(overhead, 50),
      p90: pct(overhead, 90),
      p99: pct(overhead, 99),
      max: pct(overhead, 100),
    },
    runsPerMinute: Math.round((count / (completedAt - t0)) * 60_000),
    loadavg: os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' '),
  };
}

async function main() {
  const env = await startEnv({
    runner: { capacity: { cpu: 2000, memory: 4096 }, concurrency: 16, runtimeKind: RUNTIME },
    operator: operatorOptions,
  });
  if (RUNTIME === 'bwrap') await stageImage(env);
  const child = INPROC ? undefined : await startChildOperator(env);
  await chain(env, 'paced', { a: 'true', b: 'true', c: 'true' }, { cpu: 100 });
  await chain(env, 'bench', { a: 'true', b: 'true', c: 'true' }, { cpu: 100 });
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 200);
  console.log(`runtime: ${RUNTIME}`);
  console.log(
    `load average before: ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );

  const paced = await batch(env, 'paced', RUNS, Math.round(1000 / RATE));
  console.log(JSON.stringify({ latency: paced }, null, 1));
  const burst = await batch(env, 'bench', RUNS, 0);
  console.log(JSON.stringify({ throughput: burst }, null, 1));
  console.log(
    JSON.stringify(
      {
        operator: INPROC
          ? 'in this process: not measured apart'
          : { peakRssMB: MB(opMem.rss), peakHeapUsedMB: MB(opMem.heapUsed) },
        peakRssMB: {
          thisProcess: MB(peakRss),
          note: INPROC ? 'kube-lite + PGlite + runner + operator' : 'kube-lite + PGlite + runner',
        },
      },
      null,
      1,
    ),
  );
  if (FANOUT <= 0) {
    clearInterval(sampler);
    await stopChild(child);
    await env.close();
    return;
  }

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
        peakRssMB: MB(peakRss),
        operatorPeakRssMB: INPROC ? undefined : MB(opMem.rss),
      },
      null,
      1,
    ),
  );
  await stopChild(child);
  await env.close();
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
