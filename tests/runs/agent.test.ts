// The agent end to end: the platform (operator, API, agent hub, a local runner that leaves other
// cluster managers' workflows alone) and ONE agent as a separate process (`sandflow agent`, with its
// own data folder, kube-lite and runner). POST /cluster answers the token, the agent connects and
// GET /cluster shows it connected with its resources; a session preferring that manager runs there
// to COMPLETED; a wrong token is refused and audited; a killed agent's run turns ERROR naming it.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import type http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AgentHub,
  AGENT_PATH,
  closeServices,
  createApp,
  createKubeTenancy,
  createMailer,
  defaultApiConfig,
  servicesFor,
  type ApiDeps,
} from '@sandflow/api';
import { createTestDatabase, createWorld, destroyTestDatabase } from '@sandflow/api/testing';
import { startEnv, until, type Env } from '@sandflow/embedded/testing';
import { DEFAULT_PLATFORM_CLUSTER } from '@sandflow/operator';
import { LABELS } from '@sandflow/kube';

const LOST_MS = 3000;
// The operator's scheduler reads it (lostAfterMs()); set before anything starts.
process.env.SANDFLOW_AGENT_LOST_MS = String(LOST_MS);
const repoRoot = path.resolve(import.meta.dirname, '../..');

type World = Awaited<ReturnType<typeof createWorld>>;
let env: Env;
let deps: ApiDeps;
let world: World;
let server: http.Server;
let hub: AgentHub;
let sockets: { close(): void };
let base: string;
let agentDir: string;
let agent: ChildProcess | undefined;
let agentOut = '';
let clusterId: string;
let token: string;
const boxes: Record<string, string> = {};
const workflows: Record<string, string> = {};
const logged: string[] = [];
let helloWorkflow: { namespace: string; name: string };

async function call(user: { id: string }, method: string, route: string, body?: object) {
  const access = await servicesFor(deps).tokens.signAccessToken({
    userId: user.id,
    organizationId: world.a.org.id,
  });
  const res = await fetch(`${base}/api/v0${route}`, {
    method,
    headers: { authorization: `Bearer ${access}`, 'content-type': 'application/json' },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as { result: any; error?: { message: string } } };
}

function startAgent() {
  agentOut = '';
  const child = spawn(
    process.execPath,
    ['embedded/bin/sandflow.mjs', 'agent', '--api', base, '--token', token, '--data', agentDir],
    {
      cwd: repoRoot,
      env: { ...process.env, SANDFLOW_RUNTIME: 'process', SANDFLOW_LOG_LEVEL: 'info', SANDFLOW_PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout!.on('data', (d: Buffer) => (agentOut += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (agentOut += d.toString()));
  return child;
}

function killAgent() {
  const child = agent;
  agent = undefined;
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

/** Every file under `dir` whose content contains `text`. */
function filesContaining(dir: string, text: string): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && e.name.endsWith('.log') && fs.readFileSync(p, 'utf8').includes(text))
        found.push(p);
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return found;
}

beforeAll(async () => {
  env = await startEnv({
    runner: {
      accepts: (wf) => {
        const cm = wf.metadata.labels?.[LABELS.clusterManager];
        return !cm || cm === DEFAULT_PLATFORM_CLUSTER;
      },
    },
  });
  const db = await createTestDatabase();
  world = await createWorld(db);
  const config = defaultApiConfig();
  // Warnings are kept: the hub logs what it refuses.
  const logger = pino({ level: 'warn' }, { write: (line: string) => void logged.push(line) });
  deps = { db, kube: env.kc, logger, mailer: createMailer({ db, from: config.mailFrom }), config };
  hub = new AgentHub({
    kc: env.kc,
    logger,
    lostAfterMs: LOST_MS,
    verify: (t, from) => servicesFor(deps).clusterTokens.verifyAgentToken(t, from),
  });
  await hub.start();
  deps.agentArgo = (cm) => hub.argoServerFor(cm);
  const tenancy = createKubeTenancy(env.kc);
  await tenancy.syncOrganization(world.a.org);
  await tenancy.syncGroup(world.a.org, { ...world.a.group, quota: { cpu: 2000, memory: 2048, disk: 2048 } });
  server = createApp(deps).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  sockets = hub.attach(server);
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await servicesFor(deps).resources!.synced;
  agentDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandflow-agent-'));

  for (const [name, entrypoint] of [
    ['hello', 'echo hello-from-the-agent'],
    ['nap', 'sleep 60'],
  ] as const) {
    const res = await call(world.a.target, 'POST', '/sandbox', {
      name,
      entrypoint,
      source_image: { image: 'alpine', version: '3.20' },
      permissions: { _public: { read: true, execute: true } },
    });
    expect(res.status).toBe(201);
    boxes[name] = res.body.result.uuid as string;
    const wf = await call(world.a.target, 'POST', '/workflow', {
      name: `${name} flow`,
      nodes: [{ id: 'n1', name, src_id: boxes[name] }],
      edges: [],
    });
    expect(wf.status).toBe(201);
    workflows[name] = wf.body.result.uuid as string;
  }
}, 60_000);

afterAll(async () => {
  await killAgent();
  sockets?.close();
  await new Promise((resolve) => server?.close(resolve));
  await hub?.stop();
  if (deps) {
    await closeServices(deps);
    await destroyTestDatabase(deps.db);
  }
  await env?.close();
  if (agentDir) fs.rmSync(agentDir, { recursive: true, force: true });
  delete process.env.SANDFLOW_AGENT_LOST_MS;
}, 60_000);

const start = (name: string) =>
  call(world.a.target, 'POST', '/session/instance', {
    name: `on the agent: ${name}`,
    workflow_uuid: workflows[name]!,
    group: world.a.group.id,
    cluster_pref: [clusterId],
    has_cluster_pref: true,
  });
const runOf = (uuid: string) =>
  env.getRun(`sf-${world.a.org.slug}-${world.a.group.slug}`, uuid) as Promise<{
    status?: { clusterManager?: string; phase?: string; message?: string };
  }>;
const statusOf = (run: string, want: string) =>
  until(async () => {
    const res = await call(world.a.target, 'GET', `/run/${run}`);
    return res.body.result?.status === want ? res.body.result : undefined;
  }, 60_000);

describe('an agent of another cluster manager', () => {
  it('registers with the token POST /cluster answered and shows as connected with its resources', async () => {
    const created = await call(world.a.orgAdmin, 'POST', '/cluster', {});
    expect(created.status).toBe(201);
    clusterId = created.body.result.id as string;
    token = created.body.result.token as string;
    agent = startAgent();
    const seen = await until(async () => {
      const list = await call(world.a.user, 'GET', '/cluster');
      const cm = list.body.result?.find((c: { id: string }) => c.id === clusterId);
      return cm?.connection === 'connected' && cm.cpu > 0 ? cm : undefined;
    }, 100_000).catch((e: Error) => {
      throw new Error(`${e.message}\nagent output:\n${agentOut}`);
    });
    expect(seen).toMatchObject({ isAlive: true, label: os.hostname(), version: '0.1.0' });
    expect(seen.memory).toBeGreaterThan(0);
    expect(seen.disk).toBeGreaterThan(0);
    expect(hub.connected(clusterId)).toBe(true);
  }, 120_000);

  it("runs a session that prefers it in the agent's runner, not the platform's", async () => {
    const started = await start('hello');
    expect(started.status).toBe(201);
    const { run_uuid } = started.body.result;
    const done = await statusOf(run_uuid, 'COMPLETED');
    expect(done.sandbox_statuses.map((s: { name: string; status: string }) => [s.name, s.status])).toEqual([
      ['hello', 'COMPLETED'],
    ]);
    expect((await runOf(run_uuid)).status?.clusterManager).toBe(clusterId);
    const placed = (await env.api.listNamespacedCustomObject({
      group: 'argoproj.io',
      version: 'v1alpha1',
      plural: 'workflows',
      namespace: `sf-${world.a.org.slug}-${world.a.group.slug}`,
      labelSelector: `${LABELS.clusterManager}=${clusterId}`,
    })) as { items: { metadata: { namespace: string; name: string }; status?: { phase?: string } }[] };
    expect(placed.items.map((w) => w.status?.phase)).toEqual(['Succeeded']);
    helloWorkflow = { namespace: placed.items[0]!.metadata.namespace, name: placed.items[0]!.metadata.name };
    expect(filesContaining(agentDir, 'hello-from-the-agent')).not.toEqual([]);
    expect(filesContaining(env.dataDir, 'hello-from-the-agent')).toEqual([]);
    // The run dashboard's log comes from the agent's argo-server, over its socket.
    const access = await servicesFor(deps).tokens.signAccessToken({
      userId: world.a.target.id,
      organizationId: world.a.org.id,
    });
    const log = await fetch(`${base}/api/v0/file/${run_uuid}/hello/hello`, {
      headers: { authorization: `Bearer ${access}` },
    });
    expect(log.status).toBe(200);
    expect(await log.text()).toContain('hello-from-the-agent');
  }, 90_000);

  it.each([
    ['a wrong token', 'sfa_' + 'x'.repeat(43), 'unknown'],
    ['a malformed token', 'not-a-token', 'malformed'],
  ])('refuses %s with 401 and audits it', async (_name, wrong, reason) => {
    const status = await new Promise<number>((resolve, reject) => {
      const ws = new WebSocket(`${base.replace('http', 'ws')}${AGENT_PATH}`, {
        headers: { Authorization: `Bearer ${wrong}` },
      });
      ws.on('unexpected-response', (_req, res) => {
        resolve(res.statusCode ?? 0);
        ws.terminate();
      });
      ws.on('open', () => reject(new Error('a wrong token was let in')));
      ws.on('error', () => undefined);
    });
    expect(status).toBe(401);
    const audited = await until(() =>
      deps
        .db('events')
        .where({ kind: 'clusters', action: 'token_refused' })
        .whereRaw('data::text like ?', [`%${reason}%`])
        .first(),
    );
    expect(audited).toBeDefined();
  });

  it("refuses another agent's status for a workflow not assigned to it, and absurd resources, and logs both", async () => {
    const other = await call(world.a.orgAdmin, 'POST', '/cluster', {});
    expect(other.status).toBe(201);
    const otherId = other.body.result.id as string;
    const ws = new WebSocket(`${base.replace('http', 'ws')}${AGENT_PATH}`, {
      headers: { Authorization: `Bearer ${other.body.result.token}` },
    });
    const received: { type: string; [k: string]: unknown }[] = [];
    ws.on('message', (d) => received.push(JSON.parse(d.toString())));
    try {
      await until(() => received.find((m) => m.type === 'welcome'), 10_000);
      const send = (m: object) => ws.send(JSON.stringify(m));
      send({
        type: 'hello',
        version: '0.1.0',
        label: 'intruder',
        resources: { cpu: 1000, memory: 1024, disk: 1024, architecture: 'amd64' },
        workflows: [],
      });
      send({ type: 'status', seq: 7, ...helloWorkflow, status: { phase: 'Failed', nodes: {} } });
      send({ type: 'beat', resources: { cpu: 1e12, memory: 1024, disk: 1024, architecture: 'amd64' } });
      const refusedStatus = await until(
        () => received.find((m) => m.type === 'refused' && m.seq === 7),
        10_000,
      );
      expect(refusedStatus.message).toBe(
        `workflow ${helloWorkflow.namespace}/${helloWorkflow.name} is not assigned to ${otherId}`,
      );
      expect(received).toContainEqual(expect.objectContaining({ type: 'delete', ...helloWorkflow }));
      const refusedBeat = await until(
        () => received.find((m) => m.type === 'refused' && m.seq === undefined),
        10_000,
      );
      expect(refusedBeat.message).toBe('invalid resources.cpu');
    } finally {
      ws.terminate();
    }
    // The platform's workflow kept the agent's own status.
    const wf = (await env.api.getNamespacedCustomObject({
      group: 'argoproj.io',
      version: 'v1alpha1',
      plural: 'workflows',
      ...helloWorkflow,
    })) as { status?: { phase?: string } };
    expect(wf.status?.phase).toBe('Succeeded');
    const warnings = logged.map(
      (l) => JSON.parse(l) as { msg: string; clusterManager?: string; field?: string },
    );
    expect(warnings).toContainEqual(
      expect.objectContaining({ msg: 'status refused: not assigned to it', clusterManager: otherId }),
    );
    expect(warnings).toContainEqual(
      expect.objectContaining({
        msg: 'agent message refused',
        clusterManager: otherId,
        field: 'resources.cpu',
      }),
    );
  }, 30_000);

  it('turns the run ERROR, naming the manager, when the agent is killed mid-run', async () => {
    const started = await start('nap');
    expect(started.status).toBe(201);
    const { run_uuid } = started.body.result;
    await statusOf(run_uuid, 'RUNNING');
    await killAgent();
    const failed = await statusOf(run_uuid, 'ERROR');
    const run = await runOf(run_uuid);
    expect(run.status?.clusterManager).toBe(clusterId);
    expect(JSON.stringify(failed) + JSON.stringify(run.status)).toContain(
      `cluster manager ${clusterId} lost`,
    );
  }, 90_000);
});
