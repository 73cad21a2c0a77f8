// Agents benchmark (issue 16). The platform in this process (kube-lite, operator, local runner, API and
// agent hub, set up as tests/support/agents.ts does for the test bed).
//  - assignment latency: RUNS one-step runs, one after another, on a real agent (`sandflow agent`, a
//    separate process with its own kube-lite and runner) and as many on the platform's local runner:
//    run created (just before POST /session/instance) → workflow applied in the agent's cluster (the
//    agent's 'workflow assigned' log line) and → the step's process started (its first command writes
//    the time, in ms, to a file); p50 and p95.
//  - heartbeats: AGENTS agents connected at once, beating every BEAT_MS (the protocol's hello then beats,
//    from WebSocket clients in this process: 20 real agents would be 20 kube-lites on this machine), for
//    WINDOW_S seconds, against a window with none: this process's CPU and RSS, and the hub's heartbeat
//    handling p99 (its sandflow_agent_heartbeat_duration_seconds histogram).
// Usage: npx tsx bench/agents/run.ts [runs=30] [agents=20] [beatMs=1000] [windowS=30]
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import WebSocket from 'ws';
import {
  AGENT_PATH,
  AgentHub,
  ApiMetrics,
  closeServices,
  createApp,
  createKubeTenancy,
  createMailer,
  defaultApiConfig,
  servicesFor,
  type ApiDeps,
} from '@sandflow/api';
import { createTestDatabase, createWorld, destroyTestDatabase } from '@sandflow/api/testing';
import { ROOT, startEnv, until } from '@sandflow/embedded/testing';
import { LABELS } from '@sandflow/kube';
import { DEFAULT_PLATFORM_CLUSTER } from '@sandflow/operator';

const RUNS = Number(process.argv[2] ?? 30);
const AGENTS = Number(process.argv[3] ?? 20);
const BEAT_MS = Number(process.argv[4] ?? 1000);
const WINDOW_S = Number(process.argv[5] ?? 30);

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};
const MB = (b: number) => Math.round(b / 1048576);

type Answer = { status: number; body: { result: Record<string, string> } };
type Bed = Awaited<ReturnType<typeof startPlatform>>;

/** kube-lite, operator, local runner (platform workflows only), the API with its agent hub on 127.0.0.1. */
async function startPlatform() {
  const env = await startEnv({
    runner: {
      accepts: (wf) => {
        const cm = wf.metadata.labels?.[LABELS.clusterManager];
        return !cm || cm === DEFAULT_PLATFORM_CLUSTER;
      },
    },
  });
  const db = await createTestDatabase();
  const world = await createWorld(db);
  const config = defaultApiConfig();
  const logger = pino({ level: 'warn' });
  const deps: ApiDeps = {
    db,
    kube: env.kc,
    logger,
    mailer: createMailer({ db, from: config.mailFrom }),
    config,
  };
  const metrics = new ApiMetrics();
  const hub = new AgentHub({
    kc: env.kc,
    logger,
    registry: metrics.registry,
    verify: (t, from) => servicesFor(deps).clusterTokens.verifyAgentToken(t, from),
  });
  await hub.start();
  deps.agentArgo = (cm) => hub.argoServerFor(cm);
  const tenancy = createKubeTenancy(env.kc);
  await tenancy.syncOrganization(world.a.org);
  await tenancy.syncGroup(world.a.org, { ...world.a.group, quota: { cpu: 1e6, memory: 1e6, disk: 1e6 } });
  const server = createApp(deps, metrics).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const sockets = hub.attach(server);
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await servicesFor(deps).resources!.synced;
  const call = async (
    user: { id: string },
    method: string,
    route: string,
    body?: object,
  ): Promise<Answer> => {
    const access = await servicesFor(deps).tokens.signAccessToken({
      userId: user.id,
      organizationId: world.a.org.id,
    });
    const res = await fetch(`${base}/api/v0${route}`, {
      method,
      headers: { authorization: `Bearer ${access}`, 'content-type': 'application/json' },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: (await res.json()) as Answer['body'] };
  };
  return {
    env,
    world,
    hub,
    registry: metrics.registry,
    base,
    call,
    async close() {
      sockets.close();
      await new Promise((resolve) => server.close(resolve));
      await hub.stop();
      await closeServices(deps);
      await destroyTestDatabase(db);
      await env.close();
    },
  };
}

/** `sandflow agent` as a separate process with a data folder of its own. */
function startAgent(bed: Bed, token: string) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandflow-agent-'));
  let out = '';
  const child = spawn(
    process.execPath,
    ['embedded/bin/sandflow.mjs', 'agent', '--api', bed.base, '--token', token, '--data', dir],
    {
      cwd: ROOT,
      env: { ...process.env, SANDFLOW_RUNTIME: 'process', SANDFLOW_LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  return {
    output: () => out,
    kill: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => {
          fs.rmSync(dir, { recursive: true, force: true });
          resolve();
        });
        child.kill('SIGKILL');
      }),
  };
}

async function stampFlow(bed: Bed, marks: string) {
  const box = await bed.call(bed.world.a.target, 'POST', '/sandbox', {
    name: 'stamp',
    entrypoint: `date +%s%3N > ${marks}/$SANDFLOW_RUN`,
    source_image: { image: 'alpine', version: '3.20' },
    permissions: { _public: { read: true, execute: true } },
    constraints: { cpu: 100, memory: 16, disk: 16 },
  });
  const wf = await bed.call(bed.world.a.target, 'POST', '/workflow', {
    name: 'stamp flow',
    nodes: [{ id: 'n1', name: 'stamp', src_id: box.body.result.uuid }],
    edges: [],
  });
  return wf.body.result.uuid as string;
}

async function runTo(bed: Bed, workflow: string, prefer: string, name: string) {
  const res = await bed.call(bed.world.a.target, 'POST', '/session/instance', {
    name,
    workflow_uuid: workflow,
    group: bed.world.a.group.id,
    cluster_pref: [prefer],
    has_cluster_pref: true,
  });
  const run = res.body.result.run_uuid as string;
  const ns = `sf-${bed.world.a.org.slug}-${bed.world.a.group.slug}`;
  return until(
    async () => {
      const r = (await bed.env.getRun(ns, run)) as {
        status?: { phase?: string; argoWorkflow?: string; clusterManager?: string };
      };
      if (r.status?.phase === 'ERROR') throw new Error(`run ${run}: ERROR`);
      return r.status?.phase === 'COMPLETED' ? r.status : undefined;
    },
    60_000,
    20,
  );
}

async function latency(bed: Bed, marks: string) {
  const created = await bed.call(bed.world.a.orgAdmin, 'POST', '/cluster', {});
  const cm = created.body.result.id as string;
  const agent = startAgent(bed, created.body.result.token as string);
  await until(() => bed.hub.connected(cm) && agent.output().includes('"agent registered"'), 180_000);
  const flow = await stampFlow(bed, marks);
  const results: Record<string, { applied: number[]; started: number[] }> = {
    agent: { applied: [], started: [] },
    local: { applied: [], started: [] },
  };
  for (const [where, prefer] of [
    ['agent', cm],
    ['local', DEFAULT_PLATFORM_CLUSTER],
  ] as const) {
    for (let i = 0; i < RUNS; i++) {
      const t0 = Date.now();
      const status = await runTo(bed, flow, prefer, `bench ${where} ${i}`);
      if (status.clusterManager !== prefer) throw new Error(`ran on ${status.clusterManager}, not ${prefer}`);
      const wf = status.argoWorkflow!;
      const started = Number(fs.readFileSync(path.join(marks, wf), 'utf8').trim());
      results[where]!.started.push(started - t0);
      if (where === 'agent') {
        const line = agent
          .output()
          .split('\n')
          .find((l) => l.includes('"workflow assigned"') && l.includes(`/${wf}"`));
        if (line) results[where]!.applied.push((JSON.parse(line) as { time: number }).time - t0);
      }
    }
  }
  await agent.kill();
  return results;
}

/** This process's CPU (ms per s) and peak RSS over `seconds`. */
async function window(seconds: number) {
  const cpu0 = process.cpuUsage();
  const t0 = Date.now();
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 200);
  await new Promise((r) => setTimeout(r, seconds * 1000));
  clearInterval(timer);
  const used = process.cpuUsage(cpu0);
  const elapsed = (Date.now() - t0) / 1000;
  return { cpuMsPerS: Math.round((used.user + used.system) / 1000 / elapsed), peakRssMb: MB(peak) };
}

/** The hub's heartbeat histogram: count, and the bucket bound under which 99 % fell. */
async function beatHistogram(bed: Bed) {
  const m = await bed.registry.getSingleMetric('sandflow_agent_heartbeat_duration_seconds')!.get();
  const buckets = m.values
    .filter((v) => v.labels.le !== undefined)
    .map((v) => ({ le: Number(v.labels.le), n: v.value }));
  const named = (suffix: string) =>
    m.values.find((v) => (v as { metricName?: string }).metricName?.endsWith(suffix))?.value ?? 0;
  const count = named('_count');
  const sum = named('_sum');
  return { count, sum, buckets };
}

function p99Of(before: Awaited<ReturnType<typeof beatHistogram>>, after: typeof before) {
  const n = after.count - before.count;
  const le = after.buckets.find((b, i) => b.n - (before.buckets[i]?.n ?? 0) >= Math.ceil(n * 0.99))?.le;
  return {
    beats: n,
    meanMs: n ? ((after.sum - before.sum) / n) * 1000 : NaN,
    p99UnderMs: (le ?? NaN) * 1000,
  };
}

async function heartbeats(bed: Bed) {
  const tokens: string[] = [];
  for (let i = 0; i < AGENTS; i++) {
    const c = await bed.call(bed.world.a.orgAdmin, 'POST', '/cluster', {});
    tokens.push(c.body.result.token as string);
  }
  const idle = await window(WINDOW_S);
  const resources = { cpu: 4000, memory: 8192, disk: 100_000, architecture: 'amd64' };
  const sockets: WebSocket[] = [];
  const timers: NodeJS.Timeout[] = [];
  for (const token of tokens) {
    const ws = new WebSocket(`${bed.base.replace('http', 'ws')}${AGENT_PATH}`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    sockets.push(ws);
    ws.on('message', (d) => {
      const m = JSON.parse(d.toString()) as { type: string };
      if (m.type !== 'welcome') return;
      ws.send(JSON.stringify({ type: 'hello', version: '0.1.0', label: 'bench', resources, workflows: [] }));
      timers.push(setInterval(() => ws.send(JSON.stringify({ type: 'beat', resources })), BEAT_MS));
    });
  }
  await until(
    () => sockets.every((s) => s.readyState === WebSocket.OPEN) && timers.length === AGENTS,
    60_000,
  );
  await new Promise((r) => setTimeout(r, 3000)); // the hellos' writes settle
  const before = await beatHistogram(bed);
  const busy = await window(WINDOW_S);
  const after = await beatHistogram(bed);
  for (const t of timers) clearInterval(t);
  for (const s of sockets) s.terminate();
  return { idle, busy, handling: p99Of(before, after) };
}

async function main() {
  const marks = fs.mkdtempSync(path.join(os.tmpdir(), 'sandflow-bench-agents-'));
  const bed = await startPlatform();
  try {
    console.log(`machine: ${os.cpus().length} cores, load ${os.loadavg()[0]!.toFixed(1)}`);
    const lat = await latency(bed, marks);
    for (const [where, r] of Object.entries(lat)) {
      const line = [`${where}: step started p50 ${pct(r.started, 50)} ms, p95 ${pct(r.started, 95)} ms`];
      if (r.applied.length)
        line.push(`applied on the agent p50 ${pct(r.applied, 50)} ms, p95 ${pct(r.applied, 95)} ms`);
      console.log(`${line.join('; ')} (${r.started.length} runs)`);
    }
    const hb = await heartbeats(bed);
    console.log(
      `${AGENTS} agents beating every ${BEAT_MS} ms for ${WINDOW_S} s: ` +
        `CPU ${hb.busy.cpuMsPerS} ms/s (idle ${hb.idle.cpuMsPerS}), peak RSS ${hb.busy.peakRssMb} MB ` +
        `(idle ${hb.idle.peakRssMb}); ${hb.handling.beats} beats, handling mean ` +
        `${hb.handling.meanMs.toFixed(1)} ms, p99 ≤ ${hb.handling.p99UnderMs} ms`,
    );
    console.log(`load at the end: ${os.loadavg()[0]!.toFixed(1)}`);
  } finally {
    await bed.close();
    fs.rmSync(marks, { recursive: true, force: true });
  }
}

await main();
process.exit(0);
