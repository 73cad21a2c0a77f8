// The agents' test bed: the platform in this process (kube-lite, operator, a local runner that leaves
// other cluster managers' workflows alone, the API and its agent hub) and agents as separate processes
// (`embedded/bin/sandflow.mjs agent`), each with its own data folder, kube-lite and runner.
// tests/runs/agent.test.ts (one agent) and tests/runs/agents.test.ts (three) share it.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import type http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import type { Registry } from 'prom-client';
import {
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
import { startEnv, until, type Env } from '@sandflow/embedded/testing';
import { DEFAULT_PLATFORM_CLUSTER } from '@sandflow/operator';
import { LABELS } from '@sandflow/kube';

export const repoRoot = path.resolve(import.meta.dirname, '../..');

type World = Awaited<ReturnType<typeof createWorld>>;
export type Answer = { status: number; body: { result: any; error?: { message: string } } };

export interface AgentProcess {
  readonly dir: string;
  child: ChildProcess;
  output(): string;
  /** SIGKILL (no goodbye to the platform); resolves once it exited. */
  kill(): Promise<void>;
}

export interface Bed {
  env: Env;
  deps: ApiDeps;
  world: World;
  hub: AgentHub;
  /** The API's registry (served at `${base}/metrics`), where the hub's metrics go too. */
  registry: Registry;
  /** http://127.0.0.1:<port> */
  base: string;
  /** Warnings and errors the platform logged (pino JSON lines). */
  logged: string[];
  /** An API call as `user` of organization A. */
  call(user: { id: string }, method: string, route: string, body?: object): Promise<Answer>;
  /** Starts `sandflow agent` with `token` in `dir` (made when absent). */
  startAgent(token: string, dir?: string, args?: string[]): AgentProcess;
  /** Every agent started, for afterAll. */
  agents: AgentProcess[];
  close(): Promise<void>;
}

/**
 * The platform with the hub; SANDFLOW_AGENT_LOST_MS is set to `lostMs` first (the operator's
 * connection states and the hub's lost check both read it).
 */
export async function startBed(options: {
  lostMs: number;
  groupQuota?: { cpu: number; memory: number; disk: number };
}): Promise<Bed> {
  process.env.SANDFLOW_AGENT_LOST_MS = String(options.lostMs);
  const logged: string[] = [];
  const agents: AgentProcess[] = [];
  const bed: Partial<Bed> & { agents: AgentProcess[]; logged: string[] } = { agents, logged };
  let server: http.Server | undefined;
  let sockets: { close(): void } | undefined;
  bed.close = async () => {
    await Promise.all(agents.map((a) => a.kill()));
    sockets?.close();
    if (server) await new Promise((resolve) => server!.close(resolve));
    await bed.hub?.stop();
    if (bed.deps) {
      await closeServices(bed.deps);
      await destroyTestDatabase(bed.deps.db);
    }
    await bed.env?.close();
    for (const a of agents) fs.rmSync(a.dir, { recursive: true, force: true });
    delete process.env.SANDFLOW_AGENT_LOST_MS;
  };
  try {
    bed.env = await startEnv({
      runner: {
        accepts: (wf) => {
          const cm = wf.metadata.labels?.[LABELS.clusterManager];
          return !cm || cm === DEFAULT_PLATFORM_CLUSTER;
        },
      },
    });
    const db = await createTestDatabase();
    const world = (bed.world = await createWorld(db));
    const config = defaultApiConfig();
    // Warnings are kept: the hub logs what it refuses.
    const logger = pino({ level: 'warn' }, { write: (line: string) => void logged.push(line) });
    const deps: ApiDeps = (bed.deps = {
      db,
      kube: bed.env.kc,
      logger,
      mailer: createMailer({ db, from: config.mailFrom }),
      config,
    });
    const metrics = new ApiMetrics();
    bed.registry = metrics.registry;
    const hub = (bed.hub = new AgentHub({
      kc: bed.env.kc,
      logger,
      lostAfterMs: options.lostMs,
      registry: bed.registry,
      verify: (t, from) => servicesFor(deps).clusterTokens.verifyAgentToken(t, from),
    }));
    await hub.start();
    deps.agentArgo = (cm) => hub.argoServerFor(cm);
    const tenancy = createKubeTenancy(bed.env.kc);
    await tenancy.syncOrganization(world.a.org);
    await tenancy.syncGroup(world.a.org, {
      ...world.a.group,
      quota: options.groupQuota ?? { cpu: 2000, memory: 2048, disk: 2048 },
    });
    server = createApp(deps, metrics).listen(0, '127.0.0.1');
    await new Promise((resolve) => server!.once('listening', resolve));
    sockets = hub.attach(server);
    const base = (bed.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    await servicesFor(deps).resources!.synced;

    bed.call = async (user, method, route, body) => {
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
    bed.startAgent = (token, dir, args = []) => {
      const folder = dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'sandflow-agent-'));
      let out = '';
      const child = spawn(
        process.execPath,
        ['embedded/bin/sandflow.mjs', 'agent', '--api', base, '--token', token, '--data', folder, ...args],
        {
          cwd: repoRoot,
          env: {
            ...process.env,
            SANDFLOW_RUNTIME: 'process',
            SANDFLOW_LOG_LEVEL: 'info',
            SANDFLOW_PORT: '0',
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
      const agent: AgentProcess = {
        dir: folder,
        child,
        output: () => out,
        kill: () =>
          child.exitCode !== null || child.signalCode !== null
            ? Promise.resolve()
            : new Promise<void>((resolve) => {
                child.once('exit', () => resolve());
                child.kill('SIGKILL');
              }),
      };
      agents.push(agent);
      return agent;
    };
    return bed as Bed;
  } catch (e) {
    await bed.close().catch(() => undefined);
    throw e;
  }
}

/** A sandbox (process runtime: the entrypoint runs as a shell command) and a one-node workflow of it. */
export async function sandboxFlow(
  bed: Bed,
  name: string,
  entrypoint: string,
  constraints?: { cpu: number; memory: number; disk: number },
): Promise<string> {
  const { call, world } = bed;
  const box = await call(world.a.target, 'POST', '/sandbox', {
    name,
    entrypoint,
    source_image: { image: 'alpine', version: '3.20' },
    permissions: { _public: { read: true, execute: true } },
    ...(constraints ? { constraints } : {}),
  });
  if (box.status !== 201) throw new Error(`sandbox ${name}: ${box.status} ${JSON.stringify(box.body)}`);
  const wf = await call(world.a.target, 'POST', '/workflow', {
    name: `${name} flow`,
    nodes: [{ id: 'n1', name, src_id: box.body.result.uuid }],
    edges: [],
  });
  if (wf.status !== 201) throw new Error(`workflow ${name}: ${wf.status} ${JSON.stringify(wf.body)}`);
  return wf.body.result.uuid as string;
}

/** Starts a session of `workflow` (optionally preferring one cluster manager); answers the run's uuid. */
export async function startSession(
  bed: Bed,
  workflow: string,
  options: { prefer?: string; name?: string; attempts?: number } = {},
): Promise<string> {
  const res = await bed.call(bed.world.a.target, 'POST', '/session/instance', {
    name: options.name ?? 'on the agents',
    workflow_uuid: workflow,
    group: bed.world.a.group.id,
    ...(options.prefer ? { cluster_pref: [options.prefer], has_cluster_pref: true } : {}),
    ...(options.attempts ? { attempts: options.attempts } : {}),
  });
  if (res.status !== 201) throw new Error(`session: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.result.run_uuid as string;
}

/** The run's Kubernetes object (its status.clusterManager, phase, message). */
export function runOf(bed: Bed, uuid: string) {
  return bed.env.getRun(`sf-${bed.world.a.org.slug}-${bed.world.a.group.slug}`, uuid) as Promise<{
    status?: { clusterManager?: string; phase?: string; message?: string };
  }>;
}

/** The run as GET /run answers it, once its status is `want`. */
export function statusOf(bed: Bed, run: string, want: string, timeoutMs = 60_000) {
  return until(async () => {
    const res = await bed.call(bed.world.a.target, 'GET', `/run/${run}`);
    return res.body.result?.status === want ? res.body.result : undefined;
  }, timeoutMs);
}

/** Every `.log` file under `dir` whose content contains `text`. */
export function logsContaining(dir: string, text: string): string[] {
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

/** Waits until GET /cluster shows `clusterId` connected with resources. */
export function connected(bed: Bed, clusterId: string, agent: AgentProcess, timeoutMs = 100_000) {
  return until(async () => {
    const list = await bed.call(bed.world.a.user, 'GET', '/cluster');
    const cm = list.body.result?.find((c: { id: string }) => c.id === clusterId);
    return cm?.connection === 'connected' && cm.cpu > 0 && bed.hub.connected(clusterId) ? cm : undefined;
  }, timeoutMs).catch((e: Error) => {
    throw new Error(`${e.message}\nagent output:\n${agent.output()}`);
  });
}
