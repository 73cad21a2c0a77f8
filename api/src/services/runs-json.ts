import type { Run, WorkflowSpec } from '@sandflow/crds';
import { graphOf } from './workflows-graph.js';

/** Spec 2 §9: an unset start or stop is the zero date. */
export const ZERO_DATE = '0001-01-01T00:00:00Z';

const iso = (t: string | undefined) => (t ? new Date(t).toISOString() : ZERO_DATE);

/**
 * What the ids of a run read as: users by their username (the e-mail, spec 1) and groups by their
 * name. An id missing here (a deleted user or group) reads as itself (users) or empty (groups).
 */
export interface RunNames {
  users: ReadonlyMap<string, string>;
  groups: ReadonlyMap<string, string>;
}

type History = NonNullable<NonNullable<Run['status']>['history']>;
const historyJson = (h: History | undefined, users: RunNames['users']) =>
  (h ?? []).map((e) => ({
    username: e.username ? (users.get(e.username) ?? e.username) : '',
    sandbox: e.sandbox ?? '',
    action: e.action,
    time: iso(e.time),
  }));

/** The user ids the run's history entries credit (the operator writes user ids), its sandboxes' too. */
export function historyUsersOf(run: Run): string[] {
  const status = run.status ?? {};
  const entries = [
    ...(status.history ?? []),
    ...(status.sandboxStatuses ?? []).flatMap((s) => [
      ...(s.history ?? []),
      ...(s.subSandboxes ?? []).flatMap((i) => i.history ?? []),
    ]),
  ];
  return [...new Set(entries.map((e) => e.username ?? '').filter(Boolean))];
}

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
export function runJson(run: Run, current: WorkflowSpec | undefined, names: RunNames) {
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
    group_name: names.groups.get(run.spec.group ?? '') ?? '',
    owner: run.spec.owner ?? '',
    history: historyJson(status.history, names.users),
    sandbox_statuses: (status.sandboxStatuses ?? []).map((s) => ({
      id: s.id ?? '',
      name: s.name,
      status: s.status ?? 'WAITING',
      history: historyJson(s.history, names.users),
      cluster_manager_host: s.clusterManagerHost ?? '',
      start: iso(s.startTime),
      stop: iso(s.stopTime),
      sub_sandbox: (s.subSandboxes ?? []).map((i) => ({
        name: i.name,
        status: i.status ?? 'WAITING',
        history: historyJson(i.history, names.users),
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
export function runRow(run: Run, groups: RunNames['groups']) {
  const status = run.status ?? {};
  return {
    uuid: run.metadata.name!,
    name: run.spec.name ?? '',
    status: status.phase ?? 'WAITING',
    start: iso(status.startTime),
    stop: iso(status.stopTime),
    group: run.spec.group ?? '',
    group_name: groups.get(run.spec.group ?? '') ?? '',
    trigger: run.spec.trigger ?? 'manual',
  };
}
