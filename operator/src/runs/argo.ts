// The parts of Argo's Workflow status the operator reads (argoproj.io/v1alpha1), and the one
// mutation it makes to it: resetting nodes for retry / restart_from (what `argo retry` does).
export interface ArgoNode {
  id: string;
  name: string;
  displayName?: string;
  type: string;
  phase?: string;
  message?: string;
  templateName?: string;
  boundaryID?: string;
  startedAt?: string;
  finishedAt?: string;
  children?: string[];
  outboundNodes?: string[];
  inputs?: { parameters?: { name: string; value?: string }[] };
  outputs?: {
    exitCode?: string;
    result?: string;
    artifacts?: { name: string; path?: string; s3?: { key: string } }[];
  };
}
export interface ArgoStatus {
  phase?: string;
  startedAt?: string;
  finishedAt?: string;
  message?: string;
  progress?: string;
  nodes?: Record<string, ArgoNode>;
}
export interface ArgoWorkflowObject {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: { apiVersion: string; kind: string; name: string; uid: string; controller?: boolean }[];
    creationTimestamp?: string;
    deletionTimestamp?: string;
  };
  spec: {
    suspend?: boolean;
    shutdown?: string;
    templates?: {
      name: string;
      container?: { resources?: { requests?: Record<string, string> } };
      script?: { resources?: { requests?: Record<string, string> } };
    }[];
    [k: string]: unknown;
  };
  status?: ArgoStatus;
}

export const CRON_WORKFLOW_LABEL = 'workflows.argoproj.io/cron-workflow';
export const FINAL_NODE = new Set(['Succeeded', 'Failed', 'Error', 'Skipped', 'Omitted']);

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
export function resetForRetry(wf: ArgoWorkflowObject, restartTasks: string[] = []): ArgoStatus {
  const status: ArgoStatus = structuredClone(wf.status ?? {});
  const name = wf.metadata.name!;
  const nodes = status.nodes ?? {};
  const dag = (wf.spec.templates ?? []).find((t) => (t as { dag?: unknown }).dag) as
    { dag: { tasks: { name: string; depends?: string; dependencies?: string[] }[] } } | undefined;
  const tasks = dag?.dag.tasks ?? [];
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
      if (anyChildReset && FINAL_NODE.has(n.phase ?? '') && n.phase !== 'Succeeded') {
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
