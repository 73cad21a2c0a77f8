// Test fixtures: the config/samples objects and small builders.
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import type { Sandbox, Session, Workflow, WorkflowSpec } from '@sandflow/crds';

const SAMPLES = new URL('../../../config/samples/', import.meta.url);

export function loadSamples() {
  const docs = ['sandboxes.yaml', 'workflow.yaml', 'sessions.yaml'].flatMap((f) =>
    parseAllDocuments(readFileSync(new URL(f, SAMPLES), 'utf8')).map((d) => d.toJS() as { kind: string }),
  );
  return {
    sandboxes: docs.filter((d) => d.kind === 'Sandbox') as Sandbox[],
    workflow: docs.find((d) => d.kind === 'Workflow') as Workflow,
    sessions: docs.filter((d) => d.kind === 'Session') as Session[],
  };
}

export function sandbox(name: string, extra: Partial<Sandbox['spec']> = {}): Sandbox {
  return {
    apiVersion: 'sandflow.io/v1alpha1',
    kind: 'Sandbox',
    metadata: { name: `sb-${name}`, namespace: 'sf-org' },
    spec: {
      name,
      entrypoint: '/run.sh',
      owner: 'u1',
      sourceImage: { image: 'alpine', version: '3.20' },
      ...extra,
    },
  };
}

export function workflow(spec: Omit<WorkflowSpec, 'name'> & { name?: string }): Workflow {
  return {
    apiVersion: 'sandflow.io/v1alpha1',
    kind: 'Workflow',
    metadata: { name: 'wf-1', namespace: 'sf-org' },
    spec: { name: 'wf', owner: 'u1', ...spec },
  };
}

export function session(extra: Partial<Session['spec']> = {}): Session {
  return {
    apiVersion: 'sandflow.io/v1alpha1',
    kind: 'Session',
    metadata: { name: 'sess-1', namespace: 'sf-org-grp', labels: { 'sandflow.io/organization': 'org' } },
    spec: { name: 's', workflow: 'wf-1', group: 'grp', owner: 'u1', ...extra },
  };
}

/** Nodes named after their sandbox (sandbox metadata.name sb-<name>). */
export const nodes = (...names: string[]) => names.map((n) => ({ id: n, name: n, sandbox: `sb-${n}` }));

/**
 * The property test's counterexample: x → s0 (success) → a; a → s1 (fail) → c; a → b → c. When a
 * fails, s1 routes the failure to c but b is skipped after it, so c is skipped too; when x fails, a
 * and b are a branch not taken. Argo shows b as Omitted in both cases.
 */
export const SWITCH_FAIL_JOINED_WITH_SKIPPED_NODE: Omit<WorkflowSpec, 'name'> = {
  nodes: nodes('x', 'a', 'b', 'c'),
  switches: [{ id: 's0' }, { id: 's1' }],
  edges: [
    { from: 'x', to: 's0' },
    { from: 's0', to: 'a', switchCondition: 'success' },
    { from: 'a', to: 's1' },
    { from: 's1', to: 'c', switchCondition: 'fail' },
    { from: 'a', to: 'b' },
    { from: 'b', to: 'c' },
  ],
};
