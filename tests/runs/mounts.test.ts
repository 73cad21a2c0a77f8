// Mount points end to end on the bwrap runtime (issue 16): Sandboxes applied with kubectl, bypassing
// the API's check of mount points, compiled by the operator to hostPath volumes and started by the
// local runner. The organization's mount points (the sandflow.io/mount-points annotation the API
// writes on its namespace) decide at the step's start: a row is bound read-write at its
// destination; /etc, or a symlink in a row leading out of the base path, fails the run naming it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { findBwrap } from '@sandflow/embedded/runner';
import { startEnv, until, type Env } from '@sandflow/embedded/testing';
import { buildBusyboxImage, findBusyboxStatic } from '@sandflow/images';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';

const missing = [
  !findBwrap() && 'bwrap (apt-get install bubblewrap)',
  !findBusyboxStatic() && 'busybox-static',
].filter(Boolean);
if (missing.length > 0) console.warn(`mount point runs skipped: ${missing.join(' and ')} not installed`);

const NS = 'sf-acme-lab';
let env: Env;
let tmp: string;
let reference: string;
let row: string;
let secret: string;

/** A one-step workflow whose sandbox binds `source` at /data, applied with kubectl. */
async function apply(name: string, source: string, entrypoint: string, organization = 'acme') {
  const org = { 'sandflow.io/organization': organization };
  const NS = `sf-${organization}-lab`;
  const objects = [
    {
      apiVersion: 'sandflow.io/v1alpha1',
      kind: 'Sandbox',
      metadata: { name: `sb-${name}`, namespace: NS, labels: org },
      spec: {
        name,
        owner: 'u1',
        entrypoint,
        image: { ref: reference },
        constraints: { cpu: 100, memory: 64, disk: 10 },
        mountPoints: [{ source, destination: '/data' }],
      },
    },
    {
      apiVersion: 'sandflow.io/v1alpha1',
      kind: 'Workflow',
      metadata: { name: `wf-${name}`, namespace: NS },
      spec: { name, owner: 'u1', nodes: [{ id: 'a', name: 'a', sandbox: `sb-${name}` }], edges: [] },
    },
    {
      apiVersion: 'sandflow.io/v1alpha1',
      kind: 'Session',
      metadata: { name: `sess-${name}`, namespace: NS, labels: { ...org, 'sandflow.io/group': 'lab' } },
      spec: { name, workflow: `wf-${name}`, owner: 'u1', group: 'lab', organization, attempts: 1 },
    },
    {
      apiVersion: 'sandflow.io/v1alpha1',
      kind: 'Run',
      metadata: { name: `run-${name}`, namespace: NS, labels: org },
      spec: { session: `sess-${name}`, owner: 'u1', trigger: 'manual' },
    },
  ];
  const file = path.join(tmp, `${name}.yaml`);
  fs.writeFileSync(file, objects.map((o) => stringify(o)).join('---\n'));
  await env.kubectl('apply', '-f', file);
  return until(async () => {
    const run = await env.getRun(NS, `run-${name}`);
    return ['COMPLETED', 'ERROR', 'STOPPED'].includes(run.status?.phase ?? '') ? run : undefined;
  }, 60_000);
}

describe.skipIf(missing.length > 0)('mount points at step start (bwrap runtime)', () => {
  beforeAll(async () => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sandflow-mounts-')));
    const image = await buildBusyboxImage(path.join(tmp, 'busybox'));
    reference = image.reference;
    env = await startEnv({ runner: { runtimeKind: 'bwrap', imagesDir: image.unpacked } });
    const base = path.join(tmp, 'mnt');
    row = path.join(base, 'data');
    secret = path.join(tmp, 'secret');
    fs.mkdirSync(row, { recursive: true });
    fs.mkdirSync(secret);
    fs.writeFileSync(path.join(row, 'in.txt'), 'input\n');
    fs.symlinkSync(secret, path.join(row, 'out'));
    const core = env.kc.makeApiClient(CoreV1Api);
    const org = { 'sandflow.io/organization': 'acme' };
    await core.createNamespace({
      body: {
        metadata: {
          name: 'sf-acme',
          labels: org,
          annotations: { 'sandflow.io/mount-points': JSON.stringify({ base, points: [row] }) },
        },
      },
    });
    await core.createNamespace({
      body: { metadata: { name: NS, labels: { ...org, 'sandflow.io/group': 'lab' } } },
    });
    // An organization whose admin turned safe mount off and offered the whole machine.
    const wide = { 'sandflow.io/organization': 'wide' };
    await core.createNamespace({
      body: {
        metadata: {
          name: 'sf-wide',
          labels: wide,
          annotations: { 'sandflow.io/mount-points': JSON.stringify({ base: '/', points: ['/'] }) },
        },
      },
    });
    await core.createNamespace({
      body: { metadata: { name: 'sf-wide-lab', labels: { ...wide, 'sandflow.io/group': 'lab' } } },
    });
  }, 120_000);
  afterAll(async () => {
    await env?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('binds a mount point row read-write at its destination', async () => {
    const run = await apply('rw', row, 'cat /data/in.txt && echo written > /data/out.txt');
    expect(run.status?.phase, run.status?.message).toBe('COMPLETED');
    expect(fs.readFileSync(path.join(row, 'out.txt'), 'utf8')).toBe('written\n');
  });

  it.each([
    ['etc', '/etc', /mount \/etc at \/data: outside the mount base path .*\/mnt of organization acme/],
    ['link', 'LINK', /mount .*\/mnt\/data\/out at \/data: outside the mount base path/],
  ])(
    'a sandbox binding %s fails its run at the step start, naming the path',
    async (name, source, message) => {
      const run = await apply(
        name,
        source === 'LINK' ? path.join(row, 'out') : source,
        'echo ran > /data/ran',
      );
      expect(run.status?.phase).toBe('ERROR');
      // The step's log (what the run dashboard shows for it) and its Argo node say why.
      const step = run.status?.sandboxStatuses?.find((s) => s.id === 'a');
      expect(step?.status).toBe('ERROR');
      const log = fs.readFileSync(path.join(env.dataDir, 'runs', step!.log!), 'utf8');
      expect(log).toMatch(/^failed to start container: /);
      expect(log).toMatch(message);
      const wf = (await env.api.getNamespacedCustomObject({
        group: 'argoproj.io',
        version: 'v1alpha1',
        plural: 'workflows',
        namespace: NS,
        name: run.status!.argoWorkflow!,
      })) as { status: { nodes: Record<string, { type: string; message?: string }> } };
      const pod = Object.values(wf.status.nodes).find((n) => n.type === 'Pod');
      expect(pod?.message).toMatch(message);
      expect(fs.readdirSync(secret)).toEqual([]);
    },
  );

  it("never binds the platform's data folder, even where the organization allows every folder", async () => {
    const run = await apply('own', env.dataDir, 'ls /data > /data/../listing || true', 'wide');
    expect(run.status?.phase).toBe('ERROR');
    const step = run.status?.sandboxStatuses?.find((s) => s.id === 'a');
    const log = fs.readFileSync(path.join(env.dataDir, 'runs', step!.log!), 'utf8');
    expect(log).toMatch(/overlaps the platform's data folder, which no step may bind/);
    // Beside it, the same organization's steps do bind what it offers.
    const ok = await apply('tmp', row, 'cat /data/in.txt', 'wide');
    expect(ok.status?.phase, ok.status?.message).toBe('COMPLETED');
  });
});
