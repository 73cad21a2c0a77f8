// Argo's CRDs have no status subresource, so the runner writes status with a PUT of the whole
// workflow. These races check that such a PUT never undoes what another writer wrote meanwhile
// (the operator's spec.suspend patch, anyone's metadata), and that /status is not served at all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CoreV1Api } from '@kubernetes/client-node';
import { KINDS, Kube, type Kind } from '@sandflow/kube';
import { nodeId, type ArgoWorkflow, type Template } from './argo.js';
import { startRunner, type Runner } from './index.js';
import { finishedWorkflow, startTestCluster, until } from './testing.js';

let cluster: Awaited<ReturnType<typeof startTestCluster>>;
let runner: Runner;
let argo: Kube;
const ns = 'status-writes';
const TICK = 'test.sandflow.io/tick-';

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

const step = (name: string, script: string): Template => ({
  name,
  container: { name: 'main', image: 'alpine', command: ['/bin/sh', '-c', script] },
});

/** A chain s0 → s1 → … of steps running `script`: a status write at every start and end. */
const chainOf = (name: string, steps: number, script: string) =>
  argo.create<ArgoWorkflow>(KINDS.argoWorkflow, ns, {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Workflow',
    metadata: { name },
    spec: {
      entrypoint: 'main',
      templates: [
        {
          name: 'main',
          dag: {
            tasks: Array.from({ length: steps }, (_, i) => ({
              name: `s${i}`,
              template: 's',
              ...(i > 0 ? { depends: `s${i - 1}` } : {}),
            })),
          },
        },
        step('s', script),
      ],
    },
  });

const read = (name: string) => argo.get<ArgoWorkflow>(KINDS.argoWorkflow, ns, name).then((w) => w!);
const finished = (name: string) => finishedWorkflow(argo, ns, name, 30_000);
const started = (wf: ArgoWorkflow) =>
  Object.values(wf.status?.nodes ?? {})
    .filter((n) => n.type === 'Pod')
    .map((n) => n.displayName)
    .sort();

const ticksOf = (wf: ArgoWorkflow) =>
  Object.keys(wf.metadata.annotations ?? {})
    .filter((k) => k.startsWith(TICK))
    .map((k) => Number(k.slice(TICK.length)))
    .sort((a, b) => a - b);

/**
 * Adds an annotation tick-1, tick-2, … every ~5 ms until stopped; answers how many it wrote. Each is
 * written once, so a status write that overwrote the object from a stale copy would leave a gap.
 */
function ticker(name: string) {
  let written = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      await argo.patch(KINDS.argoWorkflow, ns, name, {
        metadata: { annotations: { [`${TICK}${written + 1}`]: 'x' } },
      });
      written += 1;
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  return async () => {
    stopped = true;
    await loop;
    return written;
  };
}

// Generous: steps are real processes, and the machine may be busy.
describe('status through the whole Argo workflow', { timeout: 30_000 }, () => {
  it.each<[string, Kind]>([
    ['Workflow', KINDS.argoWorkflow],
    ['CronWorkflow', KINDS.cronWorkflow],
  ])('%s has no /status to write, as on a cluster with Argo', async (_, kind) => {
    await expect(argo.patchStatus(kind, ns, 'any', { phase: 'Running' })).rejects.toMatchObject({
      code: 404,
    });
  });

  it('a writer racing every status write loses nothing, and the status is complete', async () => {
    await chainOf('churn', 16, 'sleep 0.05');
    const stop = ticker('churn');
    let wf: ArgoWorkflow;
    let last = 0;
    try {
      wf = await finished('churn');
    } finally {
      last = await stop();
    }
    expect(wf.status).toMatchObject({ phase: 'Succeeded', progress: '16/16' });
    expect(last).toBeGreaterThan(5);
    expect(ticksOf(await read('churn'))).toEqual(Array.from({ length: last }, (_, i) => i + 1));
  });

  it('spec.suspend patched while the runner writes status holds until lifted', async () => {
    await chainOf('held', 3, 'sleep 0.5');
    await until(async () => started(await read('held')).length > 0 || undefined);
    await argo.patch(KINDS.argoWorkflow, ns, 'held', { spec: { suspend: true } });
    // s0 ends (the runner writes that) and nothing new starts
    const held = await until(async () => {
      const wf = await read('held');
      return wf.status?.nodes?.[nodeId('held', 'held.s0')]?.phase === 'Succeeded' ? wf : undefined;
    });
    await new Promise((r) => setTimeout(r, 700));
    const after = await read('held');
    expect(after.spec.suspend).toBe(true);
    expect(started(after)).toEqual(started(held));
    await argo.patch(KINDS.argoWorkflow, ns, 'held', { spec: { suspend: false } });
    expect((await finished('held')).status).toMatchObject({ phase: 'Succeeded', progress: '3/3' });
  });
});
