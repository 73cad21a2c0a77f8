import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CoreV1Api } from '@kubernetes/client-node';
import { KINDS, Kube } from '@sandflow/kube';
import { nodeId, type ArgoWorkflow, type CronWorkflow, type Template } from './argo.js';
import { startRunner, type Runner } from './index.js';
import { startTestCluster, submitWorkflow, until } from './testing.js';

let cluster: Awaited<ReturnType<typeof startTestCluster>>;
let runner: Runner;
let argo: Kube;
const ns = 'runner-test';

beforeAll(async () => {
  cluster = await startTestCluster();
  argo = new Kube(cluster.kc);
  await cluster.kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: ns } } });
  runner = await startRunner({
    kc: cluster.kc,
    dataDir: cluster.dataDir,
    capacity: { cpu: 2000, memory: 4096 },
    gracePeriodSeconds: 1,
  });
}, 60_000);
afterAll(async () => {
  await runner?.stop();
  await cluster?.close();
});

const step = (name: string, script: string, extra: Partial<Template> = {}): Template => ({
  name,
  container: {
    name: 'main',
    image: 'alpine',
    command: ['/bin/sh', '-c', script],
    env: [{ name: 'SANDFLOW_OUTPUT', value: `/sandflow/${name}` }],
    resources: { requests: { cpu: '500m', memory: '64Mi' } },
  },
  ...extra,
});

const submit = (name: string, spec: ArgoWorkflow['spec']) => submitWorkflow(argo, ns, name, spec);
const node = (wf: ArgoWorkflow, name: string) => wf.status!.nodes![nodeId(wf.metadata.name!, name)]!;

describe('local runner', () => {
  it('runs a DAG with depends, writes Argo node ids, children, outputs and logs', async () => {
    const wf = await submit('three', {
      entrypoint: 'main',
      templates: [
        {
          name: 'main',
          dag: {
            tasks: [
              { name: 'a', template: 'a' },
              { name: 'b', template: 'b', depends: 'a' },
              { name: 'c', template: 'c', depends: 'a.Succeeded && b.Succeeded' },
            ],
          },
        },
        step('a', 'mkdir -p $SANDFLOW_OUTPUT && echo hello > /sandflow/a/out.txt && echo to-log'),
        step('b', 'cat /sandflow/a/out.txt'),
        step('c', 'test "$(cat /sandflow/a/out.txt)" = hello'),
      ],
    });
    expect(wf.status!.phase).toBe('Succeeded');
    expect(wf.status!.progress).toBe('3/3');
    const root = wf.status!.nodes!.three!;
    expect(root).toMatchObject({
      type: 'DAG',
      phase: 'Succeeded',
      templateName: 'main',
      displayName: 'three',
    });
    const a = node(wf, 'three.a');
    expect(a).toMatchObject({
      type: 'Pod',
      displayName: 'a',
      boundaryID: 'three',
      phase: 'Succeeded',
      templateName: 'a',
    });
    expect(root.children).toEqual([a.id]);
    expect(a.children).toEqual([node(wf, 'three.b').id, node(wf, 'three.c').id]);
    expect(a.outputs!.exitCode).toBe('0');
    const logKey = a.outputs!.artifacts!.find((x) => x.name === 'main-logs')!.s3!.key!;
    expect(fs.readFileSync(path.join(cluster.dataDir, 'runs', logKey), 'utf8')).toBe('to-log\n');
    expect(a.outputs!.artifacts!.find((x) => x.name === 'out.txt')!.path).toBe('/sandflow/a/out.txt');
    const b = node(wf, 'three.b');
    expect(
      fs.readFileSync(path.join(cluster.dataDir, 'runs', b.outputs!.artifacts![0]!.s3!.key!), 'utf8'),
    ).toBe('hello\n');
  });

  it('retries a failing step, omits its dependants and fails the workflow', async () => {
    const wf = await submit('failing', {
      entrypoint: 'main',
      templates: [
        {
          name: 'main',
          dag: {
            failFast: false,
            tasks: [
              { name: 'bad', template: 'bad' },
              { name: 'after', template: 'ok', depends: 'bad.Succeeded' },
              { name: 'handler', template: 'ok', depends: 'bad.Failed || bad.Errored' },
              {
                name: 'end',
                template: 'end',
                depends: '(after.Succeeded || after.Omitted) && handler.Succeeded && bad.Succeeded',
              },
            ],
          },
        },
        step('bad', 'echo failing; exit 3', { retryStrategy: { limit: 1, retryPolicy: 'Always' } }),
        step('ok', 'true'),
        { name: 'end', suspend: { duration: '0' } },
      ],
    });
    expect(wf.status!.phase).toBe('Failed');
    const bad = node(wf, 'failing.bad');
    expect(bad).toMatchObject({ type: 'Retry', phase: 'Failed', message: 'Error (exit code 3)' });
    expect(bad.children).toHaveLength(2);
    expect(wf.status!.nodes![bad.children![1]!]).toMatchObject({
      name: 'failing.bad(1)',
      type: 'Pod',
      phase: 'Failed',
    });
    expect(node(wf, 'failing.after')).toMatchObject({ type: 'Skipped', phase: 'Omitted' });
    expect(node(wf, 'failing.handler').phase).toBe('Succeeded');
    expect(node(wf, 'failing.end').phase).toBe('Omitted');
    expect(wf.status!.nodes!.failing!.phase).toBe('Failed');
  });

  it('fans out withParam over the split helper, natively, and over withItems', async () => {
    const wf = await submit('fanout', {
      entrypoint: 'main',
      templates: [
        {
          name: 'main',
          dag: {
            tasks: [
              { name: 'make', template: 'make' },
              {
                name: 'split',
                template: 'sf-split',
                depends: 'make',
                arguments: {
                  parameters: [
                    { name: 'source', value: '/sandflow/make/items.txt' },
                    { name: 'target', value: '/sandflow/.instances/each' },
                    { name: 'mode', value: 'line' },
                    { name: 'per', value: '1' },
                  ],
                },
              },
              {
                name: 'each',
                template: 'each',
                depends: 'split',
                withParam: '{{tasks.split.outputs.result}}',
                arguments: { parameters: [{ name: 'instance', value: '{{item}}' }] },
              },
              { name: 'static', template: 'ok', withItems: ['x', 'y'] },
            ],
          },
        },
        step('make', 'mkdir -p /sandflow/make && printf "one\\ntwo\\nthree\\n" > /sandflow/make/items.txt'),
        {
          ...step(
            'each',
            'mkdir -p /sandflow/out && cp /sandflow/.instances/each/{{inputs.parameters.instance}} /sandflow/out/',
          ),
          inputs: { parameters: [{ name: 'instance' }] },
        },
        step('ok', 'true'),
        {
          name: 'sf-split',
          inputs: { parameters: [{ name: 'source' }, { name: 'target' }, { name: 'mode' }, { name: 'per' }] },
          script: { name: 'main', image: 'busybox:1.36', command: ['sh'], source: 'exit 1' },
        },
      ],
    });
    expect(wf.status!.phase).toBe('Succeeded');
    const out = path.join(cluster.dataDir, 'runs', ns, 'fanout', 'shared', 'out');
    expect(
      fs
        .readdirSync(out)
        .map((f) => fs.readFileSync(path.join(out, f), 'utf8'))
        .sort(),
    ).toEqual(['one\n', 'three\n', 'two\n']);
    const group = node(wf, 'fanout.each');
    expect(group.type).toBe('TaskGroup');
    expect(group.children).toHaveLength(3);
    expect(wf.status!.nodes![group.children![0]!]!.displayName).toBe('each(0:part-aaaaaa)');
    expect(node(wf, 'fanout.split').outputs!.result).toBe('["part-aaaaaa","part-aaaaab","part-aaaaac"]');
    expect(node(wf, 'fanout.static').children).toHaveLength(2);
  });

  it('stops a running workflow with shutdown: Stop, killing the process group', async () => {
    const name = 'stopped';
    await argo.create(KINDS.argoWorkflow, ns, {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Workflow',
      metadata: { name },
      spec: {
        entrypoint: 'main',
        templates: [
          {
            name: 'main',
            dag: {
              tasks: [
                { name: 'sleep', template: 'sleep' },
                { name: 'next', template: 'sleep', depends: 'sleep' },
              ],
            },
          },
          step('sleep', 'sleep 30 & sleep 30; wait'),
        ],
      },
    });
    await until(async () => {
      const wf = await argo.get<ArgoWorkflow>(KINDS.argoWorkflow, ns, name).then((w) => w!);
      return node(wf, `${name}.sleep`)?.phase === 'Running' || undefined;
    });
    const t0 = Date.now();
    await argo.patch(KINDS.argoWorkflow, ns, name, { spec: { shutdown: 'Stop' } });
    const wf = await until(async () => {
      const w = await argo.get<ArgoWorkflow>(KINDS.argoWorkflow, ns, name).then((w) => w!);
      return w.status?.phase === 'Failed' ? w : undefined;
    });
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(wf.status!.message).toBe("Stopped with strategy 'Stop'");
    expect(node(wf, `${name}.sleep`)).toMatchObject({
      phase: 'Failed',
      message: 'workflow shutdown with strategy:  Stop',
    });
  });

  it('fails a workflow past activeDeadlineSeconds', async () => {
    const wf = await submit('deadline', {
      entrypoint: 'main',
      activeDeadlineSeconds: 1,
      templates: [{ name: 'main', dag: { tasks: [{ name: 's', template: 's' }] } }, step('s', 'sleep 20')],
    });
    expect(wf.status!.phase).toBe('Failed');
    expect(wf.status!.message).toBe('Step exceeded its deadline');
  });

  it('holds steps that do not fit in the machine until resources free up', async () => {
    const wf = await submit('capacity', {
      entrypoint: 'main',
      templates: [
        { name: 'main', dag: { tasks: [{ name: 'big', template: 'big', withItems: ['1', '2'] }] } },
        {
          name: 'big',
          container: {
            name: 'main',
            command: ['sh', '-c', 'sleep 0.3; date +%s%N'],
            resources: { requests: { cpu: '1500m', memory: '64Mi' } },
          },
        },
      ],
    });
    expect(wf.status!.phase).toBe('Succeeded');
    const [c0, c1] = node(wf, 'capacity.big').children!.map((id) => wf.status!.nodes![id]!);
    const [first, second] = [c0!, c1!].sort((x, y) => Date.parse(x.startedAt!) - Date.parse(y.startedAt!));
    expect(Date.parse(second!.startedAt!)).toBeGreaterThanOrEqual(Date.parse(first!.finishedAt!) - 5);
  });

  it('survives its own restart: lost steps become Error "pod deleted" and are retried', async () => {
    const name = 'restart';
    await argo.create(KINDS.argoWorkflow, ns, {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Workflow',
      metadata: { name },
      spec: {
        entrypoint: 'main',
        templates: [
          { name: 'main', dag: { tasks: [{ name: 's', template: 's' }] } },
          step('s', 'if [ -f /sandflow/once ]; then exit 0; fi; touch /sandflow/once; sleep 30', {
            retryStrategy: { limit: 2, retryPolicy: 'Always' },
          }),
        ],
      },
    });
    await until(async () => {
      const wf = await argo.get<ArgoWorkflow>(KINDS.argoWorkflow, ns, name).then((w) => w!);
      const r = node(wf, `${name}.s`);
      return (r?.children?.length && wf.status!.nodes![r.children[0]!]!.phase === 'Running') || undefined;
    });
    await runner.stop({ kill: false });
    runner = await startRunner({
      kc: cluster.kc,
      dataDir: cluster.dataDir,
      capacity: { cpu: 2000, memory: 4096 },
    });
    const wf = await until(async () => {
      const w = await argo.get<ArgoWorkflow>(KINDS.argoWorkflow, ns, name).then((w) => w!);
      return w.status?.phase === 'Succeeded' ? w : undefined;
    });
    const r = node(wf, `${name}.s`);
    expect(wf.status!.nodes![r.children![0]!]).toMatchObject({ phase: 'Error', message: 'pod deleted' });
    expect(wf.status!.nodes![r.children![1]!]!.phase).toBe('Succeeded');
  });

  it('runs a CronWorkflow: catches up a missed schedule within startingDeadlineSeconds, labels and owns it', async () => {
    const created = await argo.create<CronWorkflow>(KINDS.cronWorkflow, ns, {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'CronWorkflow',
      metadata: { name: 'nightly' },
      spec: {
        schedules: ['* * * * *'],
        startingDeadlineSeconds: 600,
        concurrencyPolicy: 'Forbid',
        workflowMetadata: { labels: { 'sandflow.io/session': 's1' } },
        workflowSpec: {
          entrypoint: 'main',
          // Long enough to still be running when the test reads status.active.
          templates: [{ name: 'main', dag: { tasks: [{ name: 'a', template: 'a' }] } }, step('a', 'sleep 5')],
        },
      },
    });
    await argo.patch(KINDS.cronWorkflow, ns, 'nightly', {
      status: { lastScheduledTime: new Date(Date.now() - 150_000).toISOString() },
    });
    const wf = await until(async () => {
      const list = await argo.list<ArgoWorkflow>(KINDS.argoWorkflow);
      return list.items.find((w) => w.metadata.labels?.['workflows.argoproj.io/cron-workflow'] === 'nightly');
    });
    expect(wf.metadata.labels!['sandflow.io/session']).toBe('s1');
    expect(wf.metadata.ownerReferences![0]).toMatchObject({
      kind: 'CronWorkflow',
      uid: created.metadata.uid,
    });
    const cwf = await argo.get<CronWorkflow>(KINDS.cronWorkflow, ns, 'nightly').then((w) => w!);
    expect(cwf.status!.active!.map((a) => a.name)).toContain(wf.metadata.name);
  });
});
