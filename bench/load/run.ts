// bench:load (issue 19 §4) — simulated console users against the real platform, as `npm start`
// runs it: embedded/src/main.ts in a child process on 127.0.0.1 with its own temp data folder
// (kube-lite, the local runner on the process runtime, PGlite in the data folder — or the
// PostgreSQL of DATABASE_URL when it is set). Not a test: it prints figures.
//
//   npm run bench:load -- [users=100] [minutes=10] [runs=50] [think=2000]
//
// Setup (not measured): the super admin signs in, makes an organization, a group, three sandboxes
// and a public 3-step workflow, and invites the users; each user registers through the invitation,
// verifies the mailed link (read from /admin/outbox) and saves a session of the workflow. Each user
// connects from an address of its own in 127.0.0.0/8 (as people do from their own machines: the
// sign-in rate limit is per address).
// Load, for `minutes`: every user signs in, keeps the realtime socket open (acknowledging every
// message with `Ok`, as the console does), then loops with `think` ms (±50 %) between requests:
// GET /me, /sandbox, /workflow, /session, opens the workflow (GET /workflow/{uuid}), and — while
// fewer than `runs` runs are in flight — starts a run of its session (POST /session/fast) and
// follows it as the run dashboard does (GET /run/{uuid} every 2 s, the log socket of its first
// step) until it ends.
// Printed: errors (HTTP ≥ 400, network and socket errors, runs ending otherwise than COMPLETED),
// API latency p50/p95/p99 overall and per route, the platform process's RSS at start, middle and
// end, and runs completed.
//
// Memory diagnosis (opt-in, environment):
//   LOAD_NODE_OPTIONS="--expose-gc ..."  extra flags for the platform's node process;
//   LOAD_SNAPSHOTS=1,3,6                 heap snapshots of the platform at these minutes of the load
//                                        and one after the drain (LOAD_SNAPSHOTS=end: that one only;
//                                        each stops the platform while written and leaves its RSS
//                                        higher for a while — compare RSS curves without), written to LOAD_SNAPSHOT_DIR
//                                        (default: a folder under the temp dir, printed); compare
//                                        them with `npx tsx bench/load/heap-diff.ts a b`.
// Every 30 s the platform's /metrics gives its JS heap and external memory next to the RSS, and
// kube-lite's objects are counted per kind at each snapshot and at the end.
// LOAD_DELETE_SESSIONS=1: after the end, every user deletes its session (and its runs), and the
// objects, heap and RSS are read again (with LOAD_SNAPSHOTS, one more snapshot: "deleted").
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import WebSocket from 'ws';

const args = Object.fromEntries(
  process.argv
    .slice(2)
    .filter((a) => a.includes('='))
    .map((a) => a.split('=', 2) as [string, string]),
);
const USERS = Math.max(1, Number(args.users ?? 100));
const MINUTES = Math.max(0.1, Number(args.minutes ?? 10));
const MAX_RUNS = Math.max(1, Number(args.runs ?? 50));
const THINK_MS = Math.max(0, Number(args.think ?? 2000));
const RUN_TIMEOUT_MS = 5 * 60_000;
const repoRoot = path.resolve(import.meta.dirname, '../..');
const ADMIN = { email: 'load-admin@bench.local', password: 'Load-bench-Passw0rd!' };
const PASSWORD = 'Load-user-Passw0rd!';
const sh = promisify(execFile);
const NODE_OPTIONS = (process.env.LOAD_NODE_OPTIONS ?? '').split(/\s+/).filter(Boolean);
const SNAPSHOTS = Boolean(process.env.LOAD_SNAPSHOTS);
const DELETE_SESSIONS = Boolean(process.env.LOAD_DELETE_SESSIONS);
const SNAPSHOT_MINUTES = (process.env.LOAD_SNAPSHOTS ?? '')
  .split(',')
  .filter(Boolean)
  .map(Number)
  .filter((m) => Number.isFinite(m) && m >= 0);
const SNAPSHOT_DIR =
  process.env.LOAD_SNAPSHOT_DIR ??
  (SNAPSHOTS ? fs.mkdtempSync(path.join(os.tmpdir(), 'sandflow-load-heap-')) : '');

// ---------------------------------------------------------------------------------------------
// Measurements

const latencies = new Map<string, number[]>();
const errors = new Map<string, number>();
const firstErrors: string[] = [];
let runsStarted = 0;
let runsCompleted = 0;
let runsFailed = 0;
let inFlight = 0;
let realtimeMessages = 0;
let logFrames = 0;
let logRefused = 0;
let retriedResets = 0;

function error(kind: string, detail: string) {
  errors.set(kind, (errors.get(kind) ?? 0) + 1);
  if (firstErrors.length < 15) firstErrors.push(`${kind}: ${detail.slice(0, 300)}`);
}

const pct = (xs: number[], p: number) => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};

/** The platform's RSS (MB), from /proc. */
function rssOf(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

/** The platform's own view of its memory (MB) from the prom-client process metrics at /metrics. */
async function heapOf(
  url: string,
): Promise<
  { heap: number; heapTotal: number; external: number; buffers: number; series: number } | undefined
> {
  const text = await fetch(`${url}/metrics`)
    .then((r) => (r.ok ? r.text() : ''))
    .catch(() => '');
  const metric = (name: string) =>
    Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1] ?? NaN) / 2 ** 20;
  if (!text) return undefined;
  return {
    heap: metric('nodejs_heap_size_used_bytes'),
    heapTotal: metric('nodejs_heap_size_total_bytes'),
    external: metric('nodejs_external_memory_bytes'),
    buffers: metric('nodejs_heap_space_size_used_bytes\\{space="large_object"\\}'),
    series: text.split('\n').filter((l) => l && !l.startsWith('#')).length,
  };
}

/** kube-lite's objects per kind (kubectl against the platform's kube-lite). */
async function census(dataDir: string): Promise<string> {
  // No pods: the local runner runs steps as processes (kube-lite serves no Pods then).
  const kinds = [
    'runs.sandflow.io',
    'sessions.sandflow.io',
    'workflows.argoproj.io',
    'events',
    'configmaps',
    'secrets',
    'leases',
  ];
  const counts: string[] = [];
  for (const kind of kinds) {
    const out = await sh('kubectl', ['get', kind, '-A', '-o', 'name'], {
      env: { ...process.env, KUBECONFIG: path.join(dataDir, 'kubeconfig') },
      maxBuffer: 256 * 2 ** 20,
    }).then(
      (r) => String(r.stdout.split('\n').filter(Boolean).length),
      (e: Error) => `? (${e.message.split('\n')[0]})`,
    );
    counts.push(`${kind} ${out}`);
  }
  return counts.join(', ');
}

/** A heap snapshot of the platform (SIGUSR2 with --heapsnapshot-signal); resolves when it is written. */
async function snapshot(pid: number, label: string): Promise<void> {
  const before = new Set(fs.readdirSync(SNAPSHOT_DIR));
  const t0 = performance.now();
  process.kill(pid, 'SIGUSR2');
  for (let i = 0; i < 1200; i++) {
    await sleep(500);
    const made = fs.readdirSync(SNAPSHOT_DIR).find((f) => !before.has(f) && f.endsWith('.heapsnapshot'));
    if (!made) continue;
    // Written when it ends its JSON and its size stops changing (the file is streamed).
    const size = fs.statSync(path.join(SNAPSHOT_DIR, made)).size;
    await sleep(1000);
    if (size === 0 || fs.statSync(path.join(SNAPSHOT_DIR, made)).size !== size) continue;
    const named = path.join(SNAPSHOT_DIR, `${label}.heapsnapshot`);
    fs.renameSync(path.join(SNAPSHOT_DIR, made), named);
    process.stdout.write(
      `  heap snapshot ${named} (${(size / 2 ** 20).toFixed(0)} MB, ${((performance.now() - t0) / 1000).toFixed(1)} s)\n`,
    );
    return;
  }
}

// ---------------------------------------------------------------------------------------------
// A console user: its own keep-alive connections from its own loopback address

interface Client {
  address: string;
  agent: http.Agent;
  token?: string;
}

const clientFor = (i: number): Client => {
  const address = `127.0.${1 + Math.floor(i / 250)}.${1 + (i % 250)}`;
  return { address, agent: new http.Agent({ keepAlive: true, localAddress: address, maxSockets: 4 }) };
};

let base = '';
/** The platform's last output (stdout and stderr), printed when the bench fails. */
let platformOutput = () => '';

/** One API call; `route` names it in the latency table (the path template). */
function call<T>(
  client: Client,
  method: string,
  apiPath: string,
  body?: unknown,
  route = `${method} ${apiPath}`,
  measured = true,
  attempt = 0,
): Promise<{ status: number; result: T }> {
  const url = new URL(`${base}/api/v0${apiPath}`);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve) => {
    const started = performance.now();
    const req = http.request(
      {
        agent: client.agent,
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method,
        headers: {
          ...(payload ? { 'content-type': 'application/json' } : {}),
          ...(client.token ? { authorization: `Bearer ${client.token}` } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const elapsed = performance.now() - started;
          if (measured) {
            const list = latencies.get(route) ?? [];
            list.push(elapsed);
            latencies.set(route, list);
          }
          const text = Buffer.concat(chunks).toString();
          let result: T = undefined as T;
          try {
            result = (JSON.parse(text) as { result: T }).result;
          } catch {
            // not JSON: counted below when the status says so
          }
          if ((res.statusCode ?? 0) >= 400) error(`HTTP ${res.statusCode} ${route}`, text);
          resolve({ status: res.statusCode ?? 0, result });
        });
      },
    );
    req.on('error', (e: NodeJS.ErrnoException) => {
      // The server closed an idle keep-alive connection just as this request went out on it: a
      // browser sends the request again on a new connection, so does this client (counted apart).
      if (req.reusedSocket && e.code === 'ECONNRESET' && attempt === 0) {
        retriedResets++;
        resolve(call<T>(client, method, apiPath, body, route, measured, 1));
        return;
      }
      error(`network ${route}`, String(e));
      resolve({ status: 0, result: undefined as T });
    });
    req.end(payload);
  });
}

async function must<T>(client: Client, method: string, apiPath: string, body?: unknown): Promise<T> {
  const r = await call<T>(client, method, apiPath, body, `${method} ${apiPath}`, false);
  if (r.status === 0 || r.status >= 300)
    throw new Error(`setup: ${method} ${apiPath} answered ${r.status}: ${firstErrors.at(-1) ?? ''}`);
  return r.result;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const think = () => sleep(THINK_MS * (0.5 + Math.random()));

function socket(client: Client, wsPath: string, kind: string): WebSocket {
  const ws = new WebSocket(`${base.replace('http', 'ws')}${wsPath}`, {
    localAddress: client.address,
    headers: { authorization: `Bearer ${client.token}` },
  });
  ws.on('error', (e) => error(`${kind} socket`, String(e)));
  return ws;
}

// ---------------------------------------------------------------------------------------------
// The platform

async function startPlatform(dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const diagnosis = SNAPSHOTS ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${SNAPSHOT_DIR}`] : [];
  const child = spawn(
    process.execPath,
    [...NODE_OPTIONS, ...diagnosis, '--import', 'tsx', 'embedded/src/main.ts'],
    {
      cwd: repoRoot,
      env: {
        ...process.env,
        SANDFLOW_DATA_DIR: dataDir,
        SANDFLOW_PORT: '0',
        SANDFLOW_KUBE_PORT: '0',
        SANDFLOW_ADMIN_EMAIL: ADMIN.email,
        SANDFLOW_ADMIN_PASSWORD: ADMIN.password,
        SANDFLOW_RUNTIME: 'process',
        SANDFLOW_LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  platformOutput = () => out;
  child.stderr!.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the platform did not start:\n${out}`)), 300_000);
    child.stdout!.on('data', (d: Buffer) => {
      out = (out + d.toString()).slice(-20_000);
      // At log level warn the "sandflow serving" line is not logged; the console's address is printed.
      const m =
        /"url":"(http:\/\/127\.0\.0\.1:\d+)","msg":"sandflow serving"/.exec(out) ??
        /Sandflow console: (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.on('exit', (code) => reject(new Error(`the platform exited with ${code}:\n${out}`)));
  });
  for (let i = 0; i < 600; i++) {
    const ready = await fetch(`${url}/readyz`).catch(() => null);
    if (ready?.status === 200) break;
    await sleep(200);
  }
  return { child, url };
}

// ---------------------------------------------------------------------------------------------
// Setup

interface World {
  workflow: string;
  nodes: { id: string; name: string }[];
  users: { client: Client; email: string; session: string }[];
}

async function setup(dataDir: string): Promise<World> {
  const admin = clientFor(USERS); // an address none of the users has
  admin.token = (
    await must<{ access_token: string }>(admin, 'POST', '/login', {
      username: ADMIN.email,
      password: ADMIN.password,
    })
  ).access_token;
  const org = await must<{ id: string; slug: string }>(admin, 'POST', '/organizations', {
    name: 'Load',
    admins: [],
    quota: { cpu: 0, memory: 0, disk: 0 },
  });
  admin.token = (
    await must<{ access_token: string }>(admin, 'POST', '/preferences/organization', { name: 'Load' })
  ).access_token;
  const me = await must<{ id: string }>(admin, 'GET', '/me');
  const group = await must<{ id: string }>(admin, 'POST', '/group', {
    name: 'load',
    members: [me.id],
    admins: [me.id],
  });
  // Three sandboxes (kubectl apply, as an image-less sandbox is saved), public to the organization.
  const ids = [1, 2, 3].map((n) => `6a1d2c3e-4b5f-4a6b-8c7d-9e0f1a2b3c0${n}`);
  const yaml = ids
    .map(
      (id, n) => `apiVersion: sandflow.io/v1alpha1
kind: Sandbox
metadata:
  name: ${id}
  namespace: sf-${org.slug}
  labels: { sandflow.io/organization: ${org.id}, sandflow.io/owner: ${me.id} }
spec:
  name: step${n}
  version: 1.0.0
  entrypoint: echo step ${n} of a load run
  architecture: amd64
  owner: ${me.id}
  author: Load
  sourceImage: { image: busybox, version: latest }
  visibility: { type: public }
`,
    )
    .join('---\n');
  fs.writeFileSync(path.join(dataDir, 'sandboxes.yaml'), yaml);
  await sh('kubectl', ['apply', '-f', path.join(dataDir, 'sandboxes.yaml')], {
    env: { ...process.env, KUBECONFIG: path.join(dataDir, 'kubeconfig') },
  });
  const nodes = ids.map((src, i) => ({ id: `n${i + 1}`, name: `step_${i + 1}`, src_id: src }));
  const workflow = await must<{ uuid: string }>(admin, 'POST', '/workflow', {
    name: 'load',
    version: '1.0.0',
    tags: [],
    nodes: nodes.map((n, i) => ({
      ...n,
      x: i * 220,
      y: 0,
      owner: me.id,
      continueOnFail: false,
      variables: [],
    })),
    switches: [],
    edges: [
      { id: 'e1', from: 'n1', to: 'n2', type: 'single' },
      { id: 'e2', from: 'n2', to: 'n3', type: 'single' },
    ],
    visibility: { type: 'public' },
  });
  for (let i = 0; i < 600; i++) {
    const w = await must<{ valid: boolean | null }>(admin, 'GET', `/workflow/${workflow.uuid}`);
    if (w.valid === true) break;
    if (w.valid === false) throw new Error('setup: the workflow is not valid');
    await sleep(200);
  }

  // The users: invited, registered through the invitation, verified.
  const emails = Array.from({ length: USERS }, (_v, i) => `user${i}@load.bench.local`);
  for (let i = 0; i < emails.length; i += 50)
    await must(admin, 'POST', '/invite', {
      users: emails.slice(i, i + 50),
      organization: org.id,
      default_group: group.id,
    });
  const users: World['users'] = [];
  const tokenIn = (text: string, pattern: RegExp) => pattern.exec(text)?.[1];
  // One after another: on PostgreSQL, concurrent registrations through invitations of the same
  // organization collide on the member UID (organization_members_organization_id_uid_unique → 500;
  // found by this bench, see bench/README.md#load).
  for (const [i, email] of emails.entries())
    await (async () => {
      const client = clientFor(i);
      const outbox = () =>
        must<{ text: string }[]>(admin, 'GET', `/admin/outbox?to=${encodeURIComponent(email)}`);
      const invitation = (await outbox()).map((m) => tokenIn(m.text, /invite=([\w-]+)/)).find(Boolean);
      if (!invitation) throw new Error(`setup: no invitation mailed to ${email}`);
      await must(client, 'POST', '/user', {
        first_name: 'Load',
        last_name: `User ${i}`,
        email,
        password: PASSWORD,
        use_invitation: true,
        invitation_link: invitation,
      });
      const verification = (await outbox())
        .map((m) => tokenIn(m.text, /\/verification\/([\w-]+)/))
        .find(Boolean);
      if (!verification) throw new Error(`setup: no verification mailed to ${email}`);
      await must(client, 'GET', `/verify/${verification}`);
      client.token = (
        await must<{ access_token: string }>(client, 'POST', '/login', {
          username: email,
          password: PASSWORD,
        })
      ).access_token;
      const session = await must<{ uuid: string }>(client, 'POST', '/session', {
        name: `load ${i}`,
        workflow_uuid: workflow.uuid,
        group: group.id,
        schedules: [],
        attempts: 1,
        // Small allocations: the runs in flight are not held back by the machine's capacity.
        sandbox_resources: Object.fromEntries(nodes.map((n) => [n.name, { cpu: 10, memory: 16, disk: 10 }])),
      });
      client.token = undefined; // the load signs in again
      users.push({ client, email, session: session.uuid });
    })();
  return { workflow: workflow.uuid, nodes, users };
}

// ---------------------------------------------------------------------------------------------
// The load

/**
 * The run dashboard: GET /run/{uuid} every 2 s until the run ends, and the log socket of its first
 * step once that step has a log (before, the socket is refused with 404 and the page asks again).
 */
async function follow(client: Client, run: string, world: World, until: number) {
  const first = world.nodes[0]!;
  const logPath = `/api/v0/log/${encodeURIComponent(run)}/${encodeURIComponent(first.id)}/${encodeURIComponent(first.name)}?tail=1000`;
  let log: WebSocket | undefined;
  let logOpen = false;
  let logEnded = false;
  const openLog = () => {
    const ws = socket(client, logPath, 'log');
    ws.on('open', () => (logOpen = true));
    ws.on('message', (data) => {
      logFrames++;
      if (String(data).includes('"end"')) logEnded = true;
    });
    ws.on('unexpected-response', (req, res) => {
      if (res.statusCode === 404) logRefused++;
      else error('log socket', `HTTP ${res.statusCode}`);
      req.destroy();
      res.resume();
      log = undefined;
    });
    log = ws;
  };
  const deadline = Math.min(until + RUN_TIMEOUT_MS, performance.now() + RUN_TIMEOUT_MS);
  let status = '';
  try {
    while (performance.now() < deadline) {
      const r = await call<{ status: string }>(client, 'GET', `/run/${run}`, undefined, 'GET /run/{uuid}');
      status = r.result?.status ?? '';
      const ended = ['COMPLETED', 'ERROR', 'STOPPED'].includes(status);
      if (!log && !logOpen && !['', 'WAITING', 'QUEUED', 'INIT'].includes(status)) openLog();
      if (ended) break;
      await sleep(2000);
    }
    // The dashboard shows the first step's log to its end (a finished step's log is read back whole).
    for (let i = 0; i < 100 && log && !logEnded; i++) await sleep(100);
    if (log && !logOpen) error('log socket', 'not open within 10 s');
    else if (log && !logEnded) error('log socket', 'no end of the log within 10 s');
  } finally {
    if (logOpen) log?.close();
  }
  if (status === 'COMPLETED') runsCompleted++;
  else {
    runsFailed++;
    error('run not completed', `${run}: ${status || 'no status'}`);
  }
}

async function simulate(user: World['users'][number], world: World, until: number) {
  const { client } = user;
  await sleep(Math.random() * Math.min(30_000, THINK_MS * 5)); // people do not all arrive at once
  const login = await call<{ access_token: string }>(
    client,
    'POST',
    '/login',
    { username: user.email, password: PASSWORD },
    'POST /login',
  );
  client.token = login.result?.access_token;
  if (!client.token) return;
  const realtime = socket(client, '/api/v0/notifications', 'realtime');
  realtime.on('message', () => {
    realtimeMessages++;
    realtime.send('Ok');
  });
  realtime.on('close', (code) => {
    if (performance.now() < until && code !== 1000) error('realtime socket', `closed with ${code}`);
  });
  try {
    while (performance.now() < until) {
      for (const [apiPath, route] of [
        ['/me', 'GET /me'],
        ['/sandbox', 'GET /sandbox'],
        ['/workflow', 'GET /workflow'],
        ['/session', 'GET /session'],
        [`/workflow/${world.workflow}`, 'GET /workflow/{uuid}'],
      ] as const) {
        if (performance.now() >= until) return;
        await call(client, 'GET', apiPath, undefined, route);
        await think();
      }
      if (inFlight < MAX_RUNS && performance.now() < until) {
        inFlight++;
        try {
          const started = await call<{ run_uuid: string }>(
            client,
            'POST',
            '/session/fast',
            { uuid: user.session, workflow_uuid: world.workflow },
            'POST /session/fast',
          );
          if (started.result?.run_uuid) {
            runsStarted++;
            await follow(client, started.result.run_uuid, world, until);
          }
        } finally {
          inFlight--;
        }
        await think();
      }
    }
  } finally {
    realtime.close(1000);
  }
}

// ---------------------------------------------------------------------------------------------

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandflow-bench-load-'));
let platform: { child: ChildProcess; url: string } | undefined;
try {
  const database = process.env.DATABASE_URL ? 'PostgreSQL (DATABASE_URL)' : 'PGlite in the data folder';
  process.stdout.write(
    `bench:load — ${USERS} users, ${MINUTES} min, up to ${MAX_RUNS} runs in flight, think ${THINK_MS} ms ±50 %; ` +
      `${database}; Node ${process.version}; ${os.cpus().length} cores; load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}\n`,
  );
  const booting = performance.now();
  platform = await startPlatform(dataDir);
  base = platform.url;
  process.stdout.write(
    `platform serving at ${base} after ${((performance.now() - booting) / 1000).toFixed(1)} s\n`,
  );
  const settingUp = performance.now();
  const world = await setup(dataDir);
  process.stdout.write(
    `setup: ${world.users.length} users invited, registered and verified, each with a session, in ` +
      `${((performance.now() - settingUp) / 1000).toFixed(1)} s\n`,
  );
  errors.clear();
  firstErrors.length = 0;

  const pid = platform.child.pid!;
  const durationMs = MINUTES * 60_000;
  const started = performance.now();
  const until = started + durationMs;
  const rss: { at: number; mb: number; load: number }[] = [];
  const sample = () =>
    rss.push({ at: (performance.now() - started) / 1000, mb: rssOf(pid), load: os.loadavg()[0]! });
  sample();
  const sampler = setInterval(sample, 10_000);
  const progress = setInterval(() => {
    const all = [...latencies.values()].flat();
    void heapOf(base).then((heap) =>
      process.stdout.write(
        `  ${((performance.now() - started) / 60_000).toFixed(1)} min: ${all.length} requests, ` +
          `${[...errors.values()].reduce((a, b) => a + b, 0)} errors, ${inFlight} runs in flight, ` +
          `${runsCompleted} completed, RSS ${rss.at(-1)!.mb.toFixed(0)} MB` +
          (heap
            ? ` (JS heap ${heap.heap.toFixed(0)} of ${heap.heapTotal.toFixed(0)} MB, external ${heap.external.toFixed(0)} MB, ` +
              `large objects ${heap.buffers.toFixed(0)} MB, ${heap.series} metric series)`
            : '') +
          `, load ${os.loadavg()[0]!.toFixed(1)}\n`,
      ),
    );
  }, 30_000);
  // Heap snapshots one after another at the minutes asked (each stops the platform while written).
  const snapshots = (async () => {
    for (const minute of SNAPSHOT_MINUTES) {
      const wait = started + minute * 60_000 - performance.now();
      if (wait > 0) await sleep(wait);
      if (performance.now() >= until) break;
      process.stdout.write(`  ${minute} min: ${await census(dataDir)}\n`);
      await snapshot(pid, `minute-${minute}`);
    }
  })();
  await Promise.all(world.users.map((u) => simulate(u, world, until)));
  await snapshots;
  const drained = performance.now();
  clearInterval(sampler);
  clearInterval(progress);
  sample();
  const endHeap = await heapOf(base);
  process.stdout.write(
    `\nat the end: ${await census(dataDir)}` +
      (endHeap
        ? `; JS heap ${endHeap.heap.toFixed(0)} of ${endHeap.heapTotal.toFixed(0)} MB, external ${endHeap.external.toFixed(0)} MB, ${endHeap.series} metric series`
        : '') +
      '\n',
  );
  if (SNAPSHOTS) await snapshot(pid, 'end');
  if (DELETE_SESSIONS) {
    // What the runs' state costs: every user deletes its session (and so its runs); the platform's
    // objects, live heap (a snapshot forces a full collection) and RSS are read again after.
    const deleting = performance.now();
    await Promise.all(
      world.users.map((u) =>
        call(u.client, 'DELETE', `/session?sessions=${u.session}`, undefined, 'DELETE /session', false),
      ),
    );
    for (let i = 0; i < 60 && !/runs\.sandflow\.io 0,/.test(await census(dataDir)); i++) await sleep(2000);
    await sleep(10_000);
    const heap = await heapOf(base);
    process.stdout.write(
      `\nsessions deleted (${((performance.now() - deleting) / 1000).toFixed(0)} s): ${await census(dataDir)}` +
        (heap ? `; JS heap ${heap.heap.toFixed(0)} of ${heap.heapTotal.toFixed(0)} MB` : '') +
        `; RSS ${rssOf(pid).toFixed(0)} MB\n`,
    );
    if (SNAPSHOTS) await snapshot(pid, 'deleted');
    process.stdout.write(`RSS after the snapshot's full collection: ${rssOf(pid).toFixed(0)} MB\n`);
  }

  const all = [...latencies.values()].flat();
  const others = [...latencies].filter(([route]) => route !== 'POST /login').flatMap(([, xs]) => xs);
  const seconds = (drained - started) / 1000;
  const middle = rss.reduce((best, r) =>
    Math.abs(r.at - seconds / 2) < Math.abs(best.at - seconds / 2) ? r : best,
  );
  const ms = (n: number) => `${n.toFixed(1)} ms`;
  process.stdout.write(
    `\nload ran ${(seconds / 60).toFixed(1)} min (runs in flight finished after the ${MINUTES} min)\n` +
      `requests: ${all.length} (${(all.length / seconds).toFixed(1)}/s)  errors: ${[...errors.values()].reduce((a, b) => a + b, 0)}\n` +
      `API latency: p50 ${ms(pct(all, 50))}  p95 ${ms(pct(all, 95))}  p99 ${ms(pct(all, 99))}  max ${ms(Math.max(...all))}` +
      `  (target p99 ≤ 200 ms: ${pct(all, 99) <= 200 ? 'met' : 'NOT met'})\n` +
      `  without POST /login (argon2 by design): p50 ${ms(pct(others, 50))}  p95 ${ms(pct(others, 95))}  p99 ${ms(pct(others, 99))}\n` +
      `runs: ${runsStarted} started, ${runsCompleted} completed, ${runsFailed} not completed; ` +
      `${realtimeMessages} realtime messages, ${logFrames} log frames (log socket refused with 404 before ` +
      `the step had a log, then asked again: ${logRefused}); keep-alive resets retried: ${retriedResets}\n` +
      `platform RSS: start ${rss[0]!.mb.toFixed(0)} MB, middle ${middle.mb.toFixed(0)} MB (${middle.at.toFixed(0)} s), ` +
      `end ${rss.at(-1)!.mb.toFixed(0)} MB, max ${Math.max(...rss.map((r) => r.mb)).toFixed(0)} MB\n` +
      `load average: ${rss
        .map((r) => r.load)
        .reduce((a, b) => Math.min(a, b))
        .toFixed(1)} – ` +
      `${rss
        .map((r) => r.load)
        .reduce((a, b) => Math.max(a, b))
        .toFixed(1)} over the run (1 min)\n`,
  );
  process.stdout.write('\nper route: requests, p50, p95, p99 (ms)\n');
  for (const [route, xs] of [...latencies].sort(([a], [b]) => a.localeCompare(b)))
    process.stdout.write(
      `  ${route.padEnd(22)} ${String(xs.length).padStart(6)}  ${pct(xs, 50).toFixed(1).padStart(7)}  ` +
        `${pct(xs, 95).toFixed(1).padStart(7)}  ${pct(xs, 99).toFixed(1).padStart(7)}\n`,
    );
  if (errors.size) {
    process.stdout.write('\nerrors by kind:\n');
    for (const [kind, n] of errors) process.stdout.write(`  ${n}  ${kind}\n`);
    process.stdout.write(`first ones:\n${firstErrors.map((e) => `  ${e}`).join('\n')}\n`);
  }
  process.stdout.write(
    `\nRSS samples (s: MB): ${rss.map((r) => `${r.at.toFixed(0)}: ${r.mb.toFixed(0)}`).join(', ')}\n`,
  );
} catch (failure) {
  process.stderr.write(`the platform's last output:\n${platformOutput().slice(-6000)}\n`);
  throw failure;
} finally {
  if (platform && platform.child.exitCode === null) {
    const exited = new Promise<void>((resolve) => platform!.child.once('exit', () => resolve()));
    platform.child.kill('SIGTERM');
    await Promise.race([exited, sleep(30_000)]);
    if (platform.child.exitCode === null) platform.child.kill('SIGKILL');
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
}
