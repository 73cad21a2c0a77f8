import type { Run, WorkflowSpec } from '@sandflow/crds';
import { graphOf } from './workflows-graph.js';

/** Spec 2 §9: an unset start or stop is the zero date. */
export const ZERO_DATE = '0001-01-01T00:00:00Z';

const iso = (t: string | undefined) => (t ? new Date(t).toISOString() : ZERO_DATE);

type History = NonNullable<NonNullable<Run['status']>['history']>;
const historyJson = (h: History | undefined) =>
  (h ?? []).map((e) => ({
    username: e.username ?? '',
    sandbox: e.sandbox ?? '',
    action: e.action,
    time: iso(e.time),
  }));

type Edge = NonNullable<WorkflowSpec['edges']>[number];

/** The run's graph: the snapshot the operator compiled, else (not admitted yet) the workflow as it is now. */
function graphJson(run: Run, current: WorkflowSpec | undefined) {
  const snapshot = run.status?.workflow;
  const spec = (snapshot ?? current ?? { name: '' }) as WorkflowSpec & { conditionEdges?: Edge[] };
  const graph = graphOf(spec, () => undefined);
  const conditionEdges = graphOf({ name: '', edges: spec.conditionEdges ?? [] }, () => undefined).edges;
  return { name: spec.name ?? '', version: spec.version ?? '1.0.0', ...graph, conditionEdges };
}

/** Spec 2 §3 Run: statuses per sandbox with their dynamic instances, history, graph and output files. */
export function runJson(run: Run, current: WorkflowSpec | undefined) {
  const status = run.status ?? {};
  return {
    uuid: run.metadata.name!,
    _id: run.metadata.name!,
    name: run.spec.name ?? '',
    session: run.spec.session,
    parent_id: run.spec.parentRun ?? '',
    trigger: run.spec.trigger ?? 'manual',
    status: status.phase ?? 'WAITING',
    message: status.message ?? '',
    start: iso(status.startTime),
    stop: iso(status.stopTime),
    group: run.spec.group ?? '',
    owner: run.spec.owner ?? '',
    history: historyJson(status.history),
    sandbox_statuses: (status.sandboxStatuses ?? []).map((s) => ({
      id: s.id ?? '',
      name: s.name,
      status: s.status ?? 'WAITING',
      history: historyJson(s.history),
      cluster_manager_host: s.clusterManagerHost ?? '',
      start: iso(s.startTime),
      stop: iso(s.stopTime),
      sub_sandbox: (s.subSandboxes ?? []).map((i) => ({
        name: i.name,
        status: i.status ?? 'WAITING',
        history: historyJson(i.history),
        cluster_manager_host: i.clusterManagerHost ?? '',
      })),
    })),
    workflow: graphJson(run, current),
    outputs: (status.outputs ?? []).map((f) => ({
      name: f.name,
      sandbox: f.sandbox ?? '',
      size: f.size ?? 0,
      creation_time: iso(f.creationTime),
      path: f.path ?? '',
    })),
  };
}

/** A row of a session's run list (GET /schedule/:uuid/run): uuid, start, status and what the runs modal shows. */
export function runRow(run: Run) {
  const status = run.status ?? {};
  return {
    uuid: run.metadata.name!,
    name: run.spec.name ?? '',
    status: status.phase ?? 'WAITING',
    start: iso(status.startTime),
    stop: iso(status.stopTime),
    group: run.spec.group ?? '',
    trigger: run.spec.trigger ?? 'manual',
  };
}
