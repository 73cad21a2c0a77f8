// The one mutation the operator makes to an Argo Workflow's status: resetting nodes for retry /
// restart_from (what `argo retry` does).
import { FINAL_NODE_PHASES, type ArgoNode, type ArgoWorkflow, type ArgoWorkflowStatus } from '@sandflow/kube';

/** Task names a depends expression refers to. */
export function dependsOn(depends: string | undefined): string[] {
  if (!depends) return [];
  const out = new Set<string>();
  for (const m of depends.matchAll(/[A-Za-z0-9][A-Za-z0-9_-]*(?:\.[A-Za-z]+)?/g))
    out.add(m[0].split('.')[0]!);
  return [...out];
}

/**
 * The status `argo retry` leaves: failed, errored and omitted nodes removed (with their attempts),
 * for restart_from every node of the given tasks and of the tasks downstream of them, ancestors back
 * to Running, the workflow Running again with no finishedAt.
 */
export function resetForRetry(
  wf: Pick<ArgoWorkflow, 'metadata' | 'spec' | 'status'>,
  restartTasks: string[] = [],
): ArgoWorkflowStatus {
  const status: ArgoWorkflowStatus = structuredClone(wf.status ?? {});
  const name = wf.metadata.name!;
  const nodes = status.nodes ?? {};
  const tasks = (wf.spec.templates ?? []).find((t) => t.dag)?.dag?.tasks ?? [];
  const reset = new Set(restartTasks);
  if (reset.size > 0) {
    for (let changed = true; changed;) {
      changed = false;
      for (const t of tasks) {
        if (reset.has(t.name)) continue;
        const deps = t.depends ? dependsOn(t.depends) : (t.dependencies ?? []);
        if (deps.some((d) => reset.has(d))) {
          reset.add(t.name);
          changed = true;
        }
      }
    }
  }
  const underReset = (n: ArgoNode) =>
    [...reset].some((t) => n.name === `${name}.${t}` || n.name.startsWith(`${name}.${t}(`));
  const removed = new Set<string>();
  for (const n of Object.values(nodes)) {
    if (n.id === name) continue;
    if (n.phase === 'Failed' || n.phase === 'Error' || n.phase === 'Omitted' || underReset(n))
      removed.add(n.id);
  }
  // Attempts of a removed Retry node and instances of a removed TaskGroup go with it.
  for (const n of Object.values(nodes))
    if (removed.has(n.id) && (n.type === 'Retry' || n.type === 'TaskGroup'))
      for (const c of n.children ?? []) removed.add(c);
  for (const id of removed) delete nodes[id];
  for (const n of Object.values(nodes)) {
    if (n.children) n.children = n.children.filter((c) => !removed.has(c));
    if (n.type === 'DAG' || n.type === 'TaskGroup' || n.type === 'Retry') {
      const anyChildReset = n.id === name || (n.children ?? []).length === 0;
      if (anyChildReset && FINAL_NODE_PHASES.has(n.phase ?? '') && n.phase !== 'Succeeded') {
        n.phase = 'Running';
        delete n.finishedAt;
        delete n.message;
      }
    }
  }
  const root = nodes[name];
  if (root) {
    root.phase = 'Running';
    delete root.finishedAt;
    delete root.message;
    delete root.outboundNodes;
  }
  status.phase = 'Running';
  delete status.finishedAt;
  delete status.message;
  status.nodes = nodes;
  return status;
}
