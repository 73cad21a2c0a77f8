// The local runner end to end with SANDFLOW_RUNTIME=bwrap: Argo workflows whose steps run in the
// busybox-static image built by hack/images, not on the host.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { buildBusyboxImage, findBusyboxStatic } from '@sandflow/images';
import { Kube } from '@sandflow/kube';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeId, type ArgoWorkflow, type Template } from './argo.js';
import { findBwrap } from './bwrap.js';
import { startRunner, type Runner } from './index.js';
import { startTestCluster, submitWorkflow } from './testing.js';

const missing = [
  !findBwrap() && 'bwrap (apt-get install bubblewrap)',
  !findBusyboxStatic() && 'busybox-static',
].filter(Boolean);
if (missing.length > 0) console.warn(`bwrap runner tests skipped: ${missing.join(' and ')} not installed`);

const ns = 'bwrap-runner';
let cluster: Awaited<ReturnType<typeof startTestCluster>>;
let runner: Runner;
let argo: Kube;
let reference: string;
// Host folders steps bind: outside the data folder, which no step may bind (mount-policy.ts).
let hostDir: string;

const container = (name: string, image: string, script: string): Template => ({
  name,
  container: {
    name: 'main',
    image,
    command: ['sh', '-c', script],
    resources: { requests: { cpu: '100m', memory: '16Mi' } },
  },
});

const submit = (name: string, spec: ArgoWorkflow['spec']) => submitWorkflow(argo, ns, name, spec);

describe.skipIf(missing.length > 0)('local runner on the bwrap runtime', () => {
  beforeAll(async () => {
    cluster = await startTestCluster();
    hostDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sandflow-bwrap-host-')));
    argo = new Kube(cluster.kc);
    await cluster.kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: ns } } });
    const image = await buildBusyboxImage(path.join(cluster.dataDir, 'hack-images'));
    reference = image.reference;
    runner = await startRunner({
      kc: cluster.kc,
      dataDir: cluster.dataDir,
      runtimeKind: 'bwrap',
      imagesDir: image.unpacked,
      gracePeriodSeconds: 1,
    });
  }, 60_000);
  afterAll(async () => {
    await runner?.stop();
    await cluster?.close();
    if (hostDir) fs.rmSync(hostDir, { recursive: true, force: true });
  });

  it('runs a DAG in the image, passing files through /sandflow', async () => {
    const wf = await submit('in-image', {
      entrypoint: 'main',
      templates: [
        {
          name: 'main',
          dag: {
            tasks: [
              { name: 'a', template: 'a' },
              { name: 'b', template: 'b', depends: 'a' },
            ],
          },
        },
        container(
          'a',
          reference,
          '. /etc/os-release && echo "$ID" > /sandflow/os && echo scratch > /etc/scratch',
        ),
        container('b', reference, 'cat /sandflow/os; test ! -e /etc/scratch && echo fresh-root'),
      ],
    });
    expect(runner.runtime.name).toBe('bwrap');
    expect(wf.status?.phase).toBe('Succeeded');
    const b = wf.status!.nodes![nodeId('in-image', 'in-image.b')]!;
    const key = b.outputs!.artifacts!.find((x) => x.name === 'main-logs')!.s3!.key!;
    expect(fs.readFileSync(path.join(cluster.dataDir, 'runs', key), 'utf8')).toBe(
      'sandflow-busybox\nfresh-root\n',
    );
  });

  it('fails a step whose image is not there, naming the image', async () => {
    const wf = await submit('no-image', {
      entrypoint: 'main',
      templates: [
        { name: 'main', dag: { tasks: [{ name: 'x', template: 'x' }] } },
        container('x', 'python:3.12-slim', 'true'),
      ],
    });
    expect(wf.status?.phase).not.toBe('Succeeded');
    expect(JSON.stringify(wf.status?.nodes)).toMatch(
      /image python:3\.12-slim: .*not in the local images folder/,
    );
  });

  it("applies the container's runAsUser/runAsGroup, hostPath mounts and memory limit", async () => {
    const host = path.join(hostDir, 'org-mount');
    fs.mkdirSync(host, { recursive: true });
    fs.writeFileSync(path.join(host, 'model.bin'), 'weights\n');
    const step = container(
      'x',
      reference,
      'id -u; id -g; cat /models/model.bin; ulimit -v; touch /models/new',
    );
    step.container = {
      ...step.container!,
      securityContext: { runAsUser: 1500, runAsGroup: 2500 },
      resources: { requests: { cpu: '100m', memory: '16Mi' }, limits: { memory: '256Mi' } },
      volumeMounts: [
        { name: 'sandflow', mountPath: '/sandflow' },
        { name: 'models', mountPath: '/models', readOnly: true },
        { name: 'claim', mountPath: '/claim' },
      ],
    };
    const wf = await submit('as-pod', {
      entrypoint: 'main',
      volumes: [
        { name: 'models', hostPath: { path: host } },
        { name: 'claim', persistentVolumeClaim: { claimName: 'models-cache' } },
      ],
      templates: [{ name: 'main', dag: { tasks: [{ name: 'x', template: 'x' }] } }, step],
    });
    const x = wf.status!.nodes![nodeId('as-pod', 'as-pod.x')]!;
    const key = x.outputs!.artifacts!.find((a) => a.name === 'main-logs')!.s3!.key!;
    const log = fs.readFileSync(path.join(cluster.dataDir, 'runs', key), 'utf8');
    expect(log).toMatch(/^1500\n2500\nweights\n262144\n.*Read-only file system/s);
    // The read-only mount failed the step's last command; nothing was written to the host.
    expect(x.phase).toBe('Failed');
    expect(fs.readdirSync(host)).toEqual(['model.bin']);
  });

  it("binds the organization's mount points read-write and fails a step whose mount escapes them", async () => {
    // A group namespace of organization 'acme', whose namespace carries the mount points the API
    // wrote: base <host>/mnt, one row <host>/mnt/data; a symlink in the row leads out of the base.
    const core = cluster.kc.makeApiClient(CoreV1Api);
    const base = path.join(hostDir, 'mnt');
    const row = path.join(base, 'data');
    const secret = path.join(hostDir, 'secret');
    fs.mkdirSync(row, { recursive: true });
    fs.mkdirSync(secret, { recursive: true });
    fs.writeFileSync(path.join(row, 'in.txt'), 'input\n');
    fs.symlinkSync(secret, path.join(row, 'out'));
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
      body: { metadata: { name: 'sf-acme-lab', labels: { ...org, 'sandflow.io/group': 'lab' } } },
    });
    const mounting = (name: string, hostPath: string, script: string): ArgoWorkflow['spec'] => {
      const step = container('x', reference, script);
      step.container = { ...step.container!, volumeMounts: [{ name: 'm', mountPath: '/data' }] };
      return {
        entrypoint: 'main',
        volumes: [{ name: 'm', hostPath: { path: hostPath } }],
        templates: [{ name: 'main', dag: { tasks: [{ name: 'x', template: 'x' }] } }, step],
      };
    };
    const submitIn = (name: string, spec: ArgoWorkflow['spec']) =>
      submitWorkflow(argo, 'sf-acme-lab', name, spec);

    const ok = await submitIn('rw', mounting('rw', row, 'cat /data/in.txt && echo written > /data/out.txt'));
    expect(ok.status?.phase).toBe('Succeeded');
    expect(fs.readFileSync(path.join(row, 'out.txt'), 'utf8')).toBe('written\n');

    for (const [name, hostPath, message] of [
      ['etc', '/etc', /mount \/etc at \/data: outside the mount base path .*\/mnt of organization acme/],
      ['link', path.join(row, 'out'), /mount .*\/mnt\/data\/out at \/data: outside the mount base path/],
      ['other', path.join(base, 'other'), /mount .*\/mnt\/other at \/data: not one of the mount points/],
    ] as const) {
      const wf = await submitIn(name, mounting(name, hostPath, 'echo ran > /data/ran'));
      expect(wf.status?.phase).not.toBe('Succeeded');
      const x = wf.status!.nodes![nodeId(name, `${name}.x`)]!;
      expect(x.phase).toBe('Error');
      expect(x.message).toMatch(message);
    }
    expect(fs.readdirSync(secret)).toEqual([]);
  });
});
