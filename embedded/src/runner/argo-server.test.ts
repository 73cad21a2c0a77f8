import { CoreV1Api } from '@kubernetes/client-node';
import {
  KINDS,
  Kube,
  createArgoClient,
  podNameOf,
  type ArgoApiWorkflow,
  type ArgoClient,
  type ArgoLogEntry,
} from '@sandflow/kube';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeId, type ArgoWorkflow, type Template } from './argo.js';
import { startRunner, type Runner } from './index.js';
import { finishedWorkflow, startTestCluster, submitWorkflow, until } from './testing.js';

let cluster: Awaited<ReturnType<typeof startTestCluster>>;
let runner: Runner;
let kube: Kube;
let argo: ArgoClient;
const ns = 'argo-server-test';

beforeAll(async () => {
  cluster = await startTestCluster();
  kube = new Kube(cluster.kc);
  await cluster.kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: ns } } });
  runner = await startRunner({
    kc: cluster.kc,
    dataDir: cluster.dataDir,
    capacity: { cpu: 4000, memory: 4096 },
  });
  argo = createArgoClient(runner.argoServer!);
}, 60_000);
afterAll(async () => {
  await runner?.stop();
  await cluster?.close();
});

const step = (name: string, script: string): Template => ({
  name,
  container: {
    name: 'main',
    image: 'alpine',
    command: ['/bin/sh', '-c', script],
    env: [{ name: 'SANDFLOW_OUTPUT', value: `/sandflow/${name}` }],
    resources: { requests: { cpu: '100m', memory: '16Mi' } },
  },
});
const oneStep = (script: string): ArgoWorkflow['spec'] => ({
  entrypoint: 'main',
  templates: [{ name: 'main', dag: { tasks: [{ name: 's', template: 's' }] } }, step('s', script)],
});
const podOf = (wf: ArgoWorkflow) =>
  podNameOf(wf as ArgoApiWorkflow, wf.status!.nodes![nodeId(wf.metadata.name!, `${wf.metadata.name}.s`)]!);
const collect = async (entries: AsyncIterable<ArgoLogEntry> | null) => {
  const out: string[] = [];
  for await (const e of entries!) out.push(e.content!);
  return out;
};

describe("the local runner's argo-server subset, through the generated client", () => {
  it('serves a finished step: whole log, a bounded tail, the workflow, its output files; 404s', async () => {
    const wf = await submitWorkflow(
      kube,
      ns,
      'done',
      oneStep('seq 1 5000; mkdir -p $SANDFLOW_OUTPUT; printf "%s" "hello file" > $SANDFLOW_OUTPUT/out.txt'),
    );
    const pod = podOf(wf);
    const whole = await collect(await argo.logs(ns, 'done', { podName: pod }));
    expect(whole).toHaveLength(5000);
    expect(whole[0]).toBe('1');
    expect(await collect(await argo.logs(ns, 'done', { podName: pod, tailLines: 3 }))).toEqual([
      '4998',
      '4999',
      '5000',
    ]);
    const served = await argo.workflow(ns, 'done');
    expect(served?.status?.phase).toBe('Succeeded');

    const nodeOfStep = Object.values(wf.status!.nodes!).find((n) => n.type === 'Pod')!;
    const file = await argo.artifact(ns, 'done', nodeOfStep.id, 'out.txt');
    expect(file?.size).toBe(10);
    expect(await new Response(file!.body).text()).toBe('hello file');
    // The log is kept as the main-logs artifact too.
    const log = await argo.artifact(ns, 'done', nodeOfStep.id, 'main-logs');
    expect((await new Response(log!.body).text()).split('\n')[4999]).toBe('5000');

    expect(await argo.workflow(ns, 'missing')).toBeNull();
    expect(await argo.logs(ns, 'done', { podName: 'done-s-1' })).toBeNull();
    expect(await argo.logs(ns, 'missing', { podName: pod })).toBeNull();
    expect(await argo.artifact(ns, 'done', nodeOfStep.id, 'nope.txt')).toBeNull();
    expect(await argo.artifact(ns, 'done', 'done-1', 'out.txt')).toBeNull();
  });

  it('follows a running step line by line and ends when it ends', async () => {
    await kube.create(KINDS.argoWorkflow, ns, {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Workflow',
      metadata: { name: 'live' },
      spec: oneStep('for i in 1 2 3 4 5; do echo line-$i; sleep 0.3; done'),
    });
    const running = await until(async () => {
      const wf = await kube.get<ArgoWorkflow>(KINDS.argoWorkflow, ns, 'live');
      const pod = Object.values(wf?.status?.nodes ?? {}).find(
        (n) => n.type === 'Pod' && n.phase === 'Running',
      );
      return pod ? wf : undefined;
    });
    const seen: string[] = [];
    let finishedWhileFollowing: string | undefined;
    for await (const e of (await argo.logs(ns, 'live', { podName: podOf(running), follow: true }))!) {
      seen.push(e.content!);
      if (seen.length === 1) {
        const now = await kube.get<ArgoWorkflow>(KINDS.argoWorkflow, ns, 'live');
        finishedWhileFollowing = now?.status?.phase;
      }
    }
    // The first line arrived while the workflow ran; the stream ended once the step had printed all.
    expect(finishedWhileFollowing).toBe('Running');
    expect(seen).toEqual(['line-1', 'line-2', 'line-3', 'line-4', 'line-5']);
    expect((await finishedWorkflow(kube, ns, 'live')).status?.phase).toBe('Succeeded');
  });

  it.each([
    ['no token', undefined, 401],
    ['a wrong token', 'wrong', 401],
  ])('refuses %s', async (_case, token, status) => {
    const other = createArgoClient({ url: runner.argoServer!.url, ...(token ? { token } : {}) });
    await expect(other.workflow(ns, 'done')).rejects.toMatchObject({ status });
  });

  it('a tail of a 1,000,000-line log reads only the end', async () => {
    const wf = await submitWorkflow(kube, ns, 'big', oneStep('seq 1 1000000'), 60_000);
    const tail = await collect(await argo.logs(ns, 'big', { podName: podOf(wf), tailLines: 2 }));
    expect(tail).toEqual(['999999', '1000000']);
  });
});
