// What a workflow step can read or reach in embedded mode (issue 19 part 5, SECURITY.md), on the
// bwrap runtime with the busybox image: the platform's data folder (the JWT key, kube-lite's token
// and database, every run's files) is not in the step's filesystem, its environment carries no
// credential, and an HTTP server on the host's 127.0.0.1 standing for the API is reached (bwrap
// shares the network namespace) but only as an anonymous client, which the API answers 401.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { findBwrap, nodeId, startRunner, type ArgoWorkflow, type Runner } from '@sandflow/embedded/runner';
import { startTestCluster, until } from '@sandflow/embedded/testing';
import { buildBusyboxImage, findBusyboxStatic } from '@sandflow/images';
import { FINAL_WORKFLOW_PHASES, KINDS, Kube } from '@sandflow/kube';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const missing = [
  !findBwrap() && 'bwrap (apt-get install bubblewrap)',
  !findBusyboxStatic() && 'busybox-static',
].filter(Boolean);
if (missing.length > 0) console.warn(`step reach test skipped: ${missing.join(' and ')} not installed`);

const ns = 'step-reach';
const SECRET = 'jwt-key-that-no-step-may-read';
// The key that seals registry passwords (npm start keeps it next to the JWT key).
const SEALING_KEY = 'c2VhbGluZy1rZXktdGhhdC1uby1zdGVwLW1heS1yZWFk';
let cluster: Awaited<ReturnType<typeof startTestCluster>>;
let runner: Runner;
let kube: Kube;
let reference: string;
let api: http.Server;
let apiPort: number;
const seen: { path: string; authorization: string | undefined }[] = [];

describe.skipIf(missing.length > 0)('what a step can read or reach (bwrap runtime)', () => {
  beforeAll(async () => {
    cluster = await startTestCluster();
    kube = new Kube(cluster.kc);
    await cluster.kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: ns } } });
    // What `npm start` keeps in its data folder besides kube-lite's token and database.
    fs.writeFileSync(path.join(cluster.dataDir, 'jwt-secret'), `${SECRET}\n`, { mode: 0o600 });
    fs.writeFileSync(path.join(cluster.dataDir, 'secrets-key'), `${SEALING_KEY}\n`, { mode: 0o600 });
    api = http.createServer((req, res) => {
      seen.push({ path: req.url ?? '', authorization: req.headers.authorization });
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    apiPort = (api.address() as AddressInfo).port;
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
    await new Promise((resolve) => api?.close(resolve));
  });

  it('cannot read the data folder, holds no credential, reaches the host API only anonymously', async () => {
    const data = cluster.dataDir;
    const script = [
      `for f in ${data} ${data}/jwt-secret ${data}/secrets-key ${data}/kube-lite ${data}/runs /proc/1/root${data}; do`,
      '  if [ -e "$f" ]; then echo "SEES $f"; fi',
      'done',
      `cat ${data}/jwt-secret 2>/dev/null && echo READ-SECRET`,
      `cat ${data}/secrets-key 2>/dev/null && echo READ-SECRET`,
      'echo ENV-START; env; echo ENV-END',
      `wget -q -O- http://127.0.0.1:${apiPort}/api/v0/me; echo "wget=$?"`,
      'true',
    ].join('\n');
    const name = 'reach';
    await kube.create(KINDS.argoWorkflow, ns, {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Workflow',
      metadata: { name },
      spec: {
        entrypoint: 'main',
        templates: [
          { name: 'main', dag: { tasks: [{ name: 'x', template: 'x' }] } },
          {
            name: 'x',
            container: {
              name: 'main',
              image: reference,
              command: ['sh', '-c', script],
              resources: { requests: { cpu: '100m', memory: '16Mi' } },
            },
          },
        ],
      },
    } as ArgoWorkflow);
    const wf = await until(async () => {
      const w = await kube.get<ArgoWorkflow>(KINDS.argoWorkflow, ns, name);
      return w && FINAL_WORKFLOW_PHASES.has(w.status?.phase ?? '') ? w : undefined;
    }, 30_000);
    expect(runner.runtime.name).toBe('bwrap');
    expect(wf.status?.phase).toBe('Succeeded');
    const x = wf.status!.nodes![nodeId(name, `${name}.x`)]!;
    const key = x.outputs!.artifacts!.find((a) => a.name === 'main-logs')!.s3!.key!;
    const log = fs.readFileSync(path.join(cluster.dataDir, 'runs', key), 'utf8');

    // The data folder is not in the step's filesystem, not even through pid 1's root.
    expect(log).not.toMatch(/SEES|READ-SECRET/);
    expect(log).not.toContain(SECRET);
    expect(log).not.toContain(SEALING_KEY);
    expect(log).not.toContain(cluster.kubeLite.token);
    // The environment is the image's and the pod's, nothing of the platform's.
    const env = log.slice(log.indexOf('ENV-START'), log.indexOf('ENV-END'));
    expect(env).toMatch(/PATH=/);
    expect(env).not.toMatch(/SANDFLOW|KUBE|TOKEN|SECRET|DATABASE_URL|PASSWORD/i);
    // The host's loopback is reachable (shared network): the API saw the request, with no credential.
    expect(log).toMatch(/wget=1/);
    expect(seen).toEqual([{ path: '/api/v0/me', authorization: undefined }]);
  });
});
