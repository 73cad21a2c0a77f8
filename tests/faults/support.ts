// The world the fault scenarios break: `npm start`'s entry in a child process (its own data folder,
// free ports on 127.0.0.1, the process runtime so steps can append to a file of this test), an
// organization with a group, three process steps and a 3-step workflow, and a session of it.
// Each step appends `<run> <step>` to `executions` before sleeping, so executions can be counted.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startPlatform, type Platform } from '../support/platform.js';

const sh = promisify(execFile);
export const ADMIN = { email: 'faults@example.com', password: 'Faults-Test-Passw0rd!' };
export const FINAL = new Set(['COMPLETED', 'ERROR', 'STOPPED']);
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Answer<T = unknown> {
  status: number;
  body: { result: T; status: number; error?: { code: string; message?: string } } | undefined;
  text: string;
}

export class Client {
  token = '';
  constructor(public url: string) {}

  async call<T = unknown>(method: string, apiPath: string, body?: unknown): Promise<Answer<T>> {
    const res = await fetch(`${this.url}/api/v0${apiPath}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    let parsed: Answer<T>['body'];
    try {
      parsed = JSON.parse(text) as Answer<T>['body'];
    } catch {
      parsed = undefined;
    }
    return { status: res.status, body: parsed, text };
  }

  async must<T>(method: string, apiPath: string, body?: unknown): Promise<T> {
    const a = await this.call<T>(method, apiPath, body);
    if (a.status >= 300) throw new Error(`${method} ${apiPath}: ${a.status} ${a.text}`);
    return a.body!.result;
  }

  async signIn(orgName?: string) {
    this.token = (
      await this.must<{ access_token: string }>('POST', '/login', {
        username: ADMIN.email,
        password: ADMIN.password,
      })
    ).access_token;
    if (orgName)
      this.token = (
        await this.must<{ access_token: string }>('POST', '/preferences/organization', { name: orgName })
      ).access_token;
  }
}

/** Polls until `fn` gives a value. */
export async function until<T>(
  fn: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs: number,
  what: string | (() => string),
  everyMs = 250,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < end) {
    try {
      const v = await fn();
      if (v !== undefined && v !== false) return v;
    } catch (e) {
      last = e;
    }
    await sleep(everyMs);
  }
  throw new Error(
    `timed out: ${typeof what === 'string' ? what : what()}${last ? ` (last error: ${String(last)})` : ''}`,
  );
}

export interface Started {
  platform: Platform;
  client: Client;
}

/** Starts (or restarts) the platform on `dataDir` and waits until it is ready. */
export async function boot(dataDir: string, env: Record<string, string> = {}): Promise<Started> {
  const platform = await startPlatform({
    dataDir,
    timeoutMs: 240_000,
    env: {
      SANDFLOW_ADMIN_EMAIL: ADMIN.email,
      SANDFLOW_ADMIN_PASSWORD: ADMIN.password,
      SANDFLOW_RUNTIME: 'process',
      ...env,
    },
  });
  await until(
    async () => (await fetch(`${platform.url}/readyz`)).status === 200,
    120_000,
    `readyz\n${platform.output().slice(-2000)}`,
  );
  return { platform, client: new Client(platform.url) };
}

/** kill -9: the process gets no chance to flush or clean up. */
export async function killHard(p: Platform): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  const exited = new Promise((r) => p.child.once('exit', r));
  p.child.kill('SIGKILL');
  await exited;
}

export interface World {
  org: { id: string; slug: string; name: string };
  group: string;
  me: string;
  workflow: string;
  session: string;
  steps: string[];
  /** The file each step execution appends `<run> <step>` to. */
  executions: string;
  /** The sandboxes' object names, one per step. */
  ids: string[];
}

/**
 * The workflow's whole graph, version `k`: every node's position carries k (x = i·220 + k, y = k),
 * so a graph read back is whole only when all its nodes tell the same k.
 */
export function workflowBody(w: Pick<World, 'me' | 'steps' | 'ids'>, k: number) {
  return {
    name: 'faults',
    version: '1.0.0',
    tags: [],
    nodes: w.steps.map((name, i) => ({
      id: `n${i + 1}`,
      name,
      src_id: w.ids[i],
      x: i * 220 + k,
      y: k,
      owner: w.me,
      continueOnFail: false,
      variables: [],
    })),
    switches: [],
    edges: [
      { id: 'e1', from: 'n1', to: 'n2', type: 'single' },
      { id: 'e2', from: 'n2', to: 'n3', type: 'single' },
    ],
    visibility: { type: 'public' },
  };
}

/**
 * The organization, group, three process steps (`echo … >> executions; sleep stepSeconds`), a
 * workflow chaining them and a session of it, made through the API (the sandboxes with kubectl, as
 * an image-less sandbox is applied).
 */
export async function makeWorld(
  s: Started,
  dataDir: string,
  opts: { name: string; stepSeconds: number; kubeconfig?: string },
): Promise<World> {
  const c = s.client;
  await c.signIn();
  const org = await c.must<{ id: string; slug: string }>('POST', '/organizations', {
    name: opts.name,
    admins: [],
    quota: { cpu: 0, memory: 0, disk: 0 },
  });
  await c.signIn(opts.name);
  const me = (await c.must<{ id: string }>('GET', '/me')).id;
  const group = (
    await c.must<{ id: string }>('POST', '/group', { name: 'faults', members: [me], admins: [me] })
  ).id;
  const executions = path.join(dataDir, '..', `${path.basename(dataDir)}-executions`);
  fs.writeFileSync(executions, '');
  const steps = ['step_1', 'step_2', 'step_3'];
  const ids = steps.map((_s, i) => `6a1d2c3e-4b5f-4a6b-8c7d-9e0f1a2b3c0${i + 1}`);
  const yaml = ids
    .map(
      (id, i) => `apiVersion: sandflow.io/v1alpha1
kind: Sandbox
metadata:
  name: ${id}
  namespace: sf-${org.slug}
  labels: { sandflow.io/organization: ${org.id}, sandflow.io/owner: ${me} }
spec:
  name: box${i + 1}
  version: 1.0.0
  entrypoint: 'echo "$SANDFLOW_RUN ${steps[i]}" >> ${executions}; sleep ${opts.stepSeconds}'
  architecture: amd64
  owner: ${me}
  author: Faults
  sourceImage: { image: busybox, version: latest }
  visibility: { type: public }
`,
    )
    .join('---\n');
  const file = path.join(os.tmpdir(), `${path.basename(dataDir)}-sandboxes.yaml`);
  fs.writeFileSync(file, yaml);
  await sh('kubectl', ['apply', '-f', file], {
    env: { ...process.env, KUBECONFIG: opts.kubeconfig ?? path.join(dataDir, 'kubeconfig') },
    timeout: 60_000,
  });
  fs.rmSync(file);
  const workflow = (await c.must<{ uuid: string }>('POST', '/workflow', workflowBody({ me, steps, ids }, 0)))
    .uuid;
  await until(
    async () => (await c.must<{ valid: boolean | null }>('GET', `/workflow/${workflow}`)).valid === true,
    60_000,
    'the workflow is valid',
  );
  const session = (
    await c.must<{ uuid: string }>('POST', '/session', {
      name: 'faults session',
      workflow_uuid: workflow,
      group,
      schedules: [],
      attempts: 1,
      sandbox_resources: Object.fromEntries(steps.map((n) => [n, { cpu: 10, memory: 16, disk: 10 }])),
    })
  ).uuid;
  return { org: { ...org, name: opts.name }, group, me, workflow, session, steps, executions, ids };
}

/** `<run> <step>` lines of the executions file, counted. */
export function executionCounts(w: World): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of fs.readFileSync(w.executions, 'utf8').split('\n').filter(Boolean))
    counts.set(line, (counts.get(line) ?? 0) + 1);
  return counts;
}

/** A seeded generator (mulberry32): kill points are the same on every run of a suite. */
export function seeded(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
