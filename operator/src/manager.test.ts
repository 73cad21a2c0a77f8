import type { Run, Session } from '@sandflow/crds';
import type { ArgoWorkflow, Cache } from '@sandflow/kube';
import { describe, expect, it } from 'vitest';
import type { Context } from './context.js';
import { rebuildActive } from './manager.js';

/** A cache over a fixed list, indexed like the manager's (Argo workflows by `namespace/run`). */
function cacheOf<T extends { metadata: { name?: string; namespace?: string } }>(
  items: T[],
  index: (o: T) => string | undefined = () => undefined,
): Cache<T> {
  return {
    list: (ns) => items.filter((o) => !ns || o.metadata.namespace === ns),
    get: (name, ns) =>
      items.find((o) => o.metadata.name === name && (o.metadata.namespace ?? '') === (ns ?? '')),
    byIndex: (_name, value) => items.filter((o) => index(o) === value),
  };
}

const run = (name: string, status: Run['status'], owner?: string): Run => ({
  apiVersion: 'sandflow.io/v1alpha1',
  kind: 'Run',
  metadata: { name, namespace: 'g' },
  spec: { session: 's', ...(owner ? { owner } : {}) },
  ...(status ? { status } : {}),
});
const argo = (name: string, runName: string, cpu: string, phase?: string): ArgoWorkflow => ({
  apiVersion: 'argoproj.io/v1alpha1',
  kind: 'Workflow',
  metadata: {
    name,
    namespace: 'g',
    labels: { 'sandflow.io/run': runName, 'sandflow.io/cluster-manager': 'c2' },
  },
  spec: {
    templates: [
      { name: 'step', container: { name: 'main', resources: { requests: { cpu, memory: '64Mi' } } } },
    ],
  },
  ...(phase ? { status: { phase } } : {}),
});
const session: Session = {
  apiVersion: 'sandflow.io/v1alpha1',
  kind: 'Session',
  metadata: { name: 's', namespace: 'g' },
  spec: { name: 's', workflow: 'wf', owner: 'session-owner' },
};

function rebuilt(runs: Run[], workflows: ArgoWorkflow[]) {
  const ctx = {
    active: new Map([
      ['g/stale', { namespace: 'g', owner: '', demand: { cpu: 1, memory: 1, disk: 1 }, cluster: '' }],
    ]),
    caches: {
      runs: cacheOf(runs),
      argo: cacheOf(workflows, (w) => `${w.metadata.namespace}/${w.metadata.labels?.['sandflow.io/run']}`),
      sessions: cacheOf([session]),
    },
  } as unknown as Context;
  rebuildActive(ctx);
  return Object.fromEntries([...ctx.active].map(([k, a]) => [k, `${a.owner} ${a.demand.cpu}m ${a.cluster}`]));
}

describe('rebuildActive', () => {
  it.each([
    [
      'an admitted run holds its workflow’s demand',
      [run('a', { phase: 'RUNNING', argoWorkflow: 'a', clusterManager: 'c1' }, 'u1')],
      [argo('a', 'a', '250m')],
      { 'g/a': 'u1 250m c1' },
    ],
    [
      'a finished run holds nothing',
      [run('a', { phase: 'COMPLETED', argoWorkflow: 'a' })],
      [argo('a', 'a', '250m', 'Succeeded')],
      {},
    ],
    ['a queued run holds nothing', [run('a', { phase: 'QUEUED' })], [], {}],
    [
      'a workflow created before its status write was lost still counts (owner from the session)',
      [run('a', { phase: 'QUEUED' })],
      [argo('a', 'a', '1', 'Running')],
      { 'g/a': 'session-owner 1000m c2' },
    ],
    ['a finished orphan workflow does not', [run('a', undefined)], [argo('a', 'a', '1', 'Failed')], {}],
    [
      'an admitted run whose workflow is gone holds nothing measurable',
      [run('a', { phase: 'INIT', argoWorkflow: 'a', clusterManager: 'c1' }, 'u1')],
      [],
      { 'g/a': 'u1 0m c1' },
    ],
  ])('%s', (_what, runs, workflows, expected) => {
    expect(rebuilt(runs, workflows)).toEqual(expected);
  });
});
