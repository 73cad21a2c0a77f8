// A three-step chain a → b → c in a fresh group namespace, and runs of it.
import { CoreV1Api } from '@kubernetes/client-node';
import type { Run } from '@sandflow/crds';
import type { Env } from './platform.js';

const G = { group: 'sandflow.io', version: 'v1alpha1' };

export async function chain(
  env: Env,
  ns: string,
  steps: Record<string, string>,
  opts: { attempts?: number; cpu?: number; quotaCpu?: string } = {},
) {
  const core = env.kc.makeApiClient(CoreV1Api);
  await core.createNamespace({
    body: {
      metadata: { name: ns, labels: { 'sandflow.io/organization': 'org', 'sandflow.io/group': 'grp' } },
    },
  });
  if (opts.quotaCpu)
    await core.createNamespacedResourceQuota({
      namespace: ns,
      body: { metadata: { name: 'sandflow-quota' }, spec: { hard: { 'requests.cpu': opts.quotaCpu } } },
    });
  const names = Object.keys(steps);
  for (const n of names) {
    await env.api.createNamespacedCustomObject({
      ...G,
      plural: 'sandboxes',
      namespace: ns,
      body: {
        apiVersion: 'sandflow.io/v1alpha1',
        kind: 'Sandbox',
        metadata: { name: `sb-${n}`, labels: { 'sandflow.io/organization': 'org' } },
        spec: {
          name: n,
          owner: 'u1',
          entrypoint: steps[n],
          sourceImage: { image: 'alpine', version: '3.20' },
          constraints: { cpu: opts.cpu ?? 100, memory: 64, disk: 10 },
        },
      },
    });
  }
  await env.api.createNamespacedCustomObject({
    ...G,
    plural: 'workflows',
    namespace: ns,
    body: {
      apiVersion: 'sandflow.io/v1alpha1',
      kind: 'Workflow',
      metadata: { name: 'wf' },
      spec: {
        name: 'chain',
        owner: 'u1',
        nodes: names.map((n) => ({ id: n, name: n, sandbox: `sb-${n}` })),
        edges: names.slice(1).map((n, i) => ({ id: `e${i}`, from: names[i], to: n, type: 'single' })),
      },
    },
  });
  await env.api.createNamespacedCustomObject({
    ...G,
    plural: 'sessions',
    namespace: ns,
    body: {
      apiVersion: 'sandflow.io/v1alpha1',
      kind: 'Session',
      metadata: { name: 'sess', labels: { 'sandflow.io/organization': 'org', 'sandflow.io/group': 'grp' } },
      spec: {
        name: 'manual',
        workflow: 'wf',
        owner: 'u1',
        group: 'grp',
        organization: 'org',
        attempts: opts.attempts ?? 1,
      },
    },
  });
}

export async function createRun(env: Env, ns: string, name: string, owner = 'u1'): Promise<void> {
  await env.api.createNamespacedCustomObject({
    ...G,
    plural: 'runs',
    namespace: ns,
    body: {
      apiVersion: 'sandflow.io/v1alpha1',
      kind: 'Run',
      metadata: { name, labels: { 'sandflow.io/organization': 'org' } },
      spec: { session: 'sess', owner, trigger: 'manual' },
    },
  });
}

export async function patchRun(env: Env, ns: string, name: string, spec: Partial<Run['spec']>) {
  const { PatchStrategy, setHeaderOptions } = await import('@kubernetes/client-node');
  await env.api.patchNamespacedCustomObject(
    { ...G, plural: 'runs', namespace: ns, name, body: { spec } },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
}
