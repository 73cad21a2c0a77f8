import type { Run, Session, Sandbox, WorkflowSpec } from '@sandflow/crds';
import { DEFAULTS, sessionOverrideOf } from '@sandflow/crds';
import { LABELS } from '@sandflow/kube';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Resources } from '../resources/index.js';
import { priceStep } from './billing-prices.js';
import { rollupChanges } from './statistics-rollup.js';
import { transaction } from './transaction.js';

/** Phases a run and a step end in; only ended executions are recorded. */
const ENDED = new Set(['COMPLETED', 'ERROR', 'STOPPED']);

export interface RunRecordRow {
  run_uid: string;
  run_name: string;
  organization_id: string;
  group_id: string | null;
  user_id: string | null;
  session: string;
  session_name: string;
  cluster: string;
  status: string;
  started_at: string | null;
  stopped_at: string;
}

export interface StepRecordRow {
  run_uid: string;
  run_name: string;
  node_id: string;
  attempt: string;
  organization_id: string;
  group_id: string | null;
  user_id: string | null;
  session: string;
  session_name: string;
  sandbox_id: string;
  sandbox_name: string;
  cluster: string;
  status: string;
  cpu: number;
  memory: number;
  disk: number;
  started_at: string;
  stopped_at: string;
  duration_ns: string;
  machine_cpu: number;
  machine_memory: number;
  amount_nano: string;
}

/** What a run's steps were given: the session's override, else the sandbox's constraints, else defaults. */
export type AllocationOf = (node: { id?: string; name: string }) => {
  sandboxId: string;
  cpu: number;
  memory: number;
  disk: number;
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const uuidOrNull = (value: string | undefined) => (value && UUID.test(value) ? value : null);
const validTime = (value: string | undefined) =>
  value && !value.startsWith('0001-') && Number.isFinite(Date.parse(value)) ? value : undefined;

/** Nanoseconds between two RFC 3339 times (millisecond precision is all Kubernetes keeps). */
function nanosBetween(start: string, stop: string): bigint {
  return BigInt(Math.max(0, Date.parse(stop) - Date.parse(start))) * 1_000_000n;
}

/**
 * The rows an ended run is recorded as: its outcome and one row per ended step execution.
 * null while the run has not ended (or carries no uid).
 */
export function recordsOfRun(
  run: Run,
  organizationId: string,
  allocationOf: AllocationOf,
  sessionName = '',
): { run: RunRecordRow; steps: StepRecordRow[] } | null {
  const status = run.status ?? {};
  const stoppedAt = validTime(status.stopTime);
  if (!run.metadata.uid || !status.phase || !ENDED.has(status.phase) || !stoppedAt) return null;
  const common = {
    run_uid: run.metadata.uid,
    run_name: run.metadata.name!,
    organization_id: organizationId,
    group_id: uuidOrNull(run.spec.group || run.metadata.labels?.[LABELS.group]),
    user_id: uuidOrNull(run.spec.owner || run.metadata.labels?.[LABELS.owner]),
    session: run.spec.session,
    session_name: sessionName,
  };
  const cluster = status.clusterManager ?? '';
  const steps: StepRecordRow[] = [];
  for (const step of status.sandboxStatuses ?? []) {
    const start = validTime(step.startTime);
    const stop = validTime(step.stopTime);
    if (!start || !stop || !step.status || !ENDED.has(step.status)) continue;
    const allocation = allocationOf(step);
    const durationNs = nanosBetween(start, stop);
    const priced = priceStep(allocation.cpu, allocation.memory, durationNs);
    steps.push({
      ...common,
      node_id: step.id || step.name,
      attempt: new Date(start).toISOString(),
      sandbox_id: allocation.sandboxId,
      sandbox_name: step.name,
      cluster: step.clusterManagerHost || cluster,
      status: step.status,
      cpu: allocation.cpu,
      memory: allocation.memory,
      disk: allocation.disk,
      started_at: start,
      stopped_at: stop,
      duration_ns: durationNs.toString(),
      machine_cpu: priced.machine.cpu,
      machine_memory: priced.machine.memory,
      amount_nano: priced.amountNano.toString(),
    });
  }
  return {
    run: {
      ...common,
      cluster,
      status: status.phase,
      started_at: validTime(status.startTime) ?? null,
      stopped_at: stoppedAt,
    },
    steps,
  };
}

/** The operator's allocation rule (operator/src/compiler/compile.ts), over the cached objects. */
export function allocationFrom(
  session: Session | undefined,
  workflow: WorkflowSpec | undefined,
  sandboxOf: (name: string, namespace?: string) => Sandbox | undefined,
): AllocationOf {
  return (step) => {
    const node =
      workflow?.nodes?.find((n) => n.id === step.id) ?? workflow?.nodes?.find((n) => n.name === step.name);
    const override = sessionOverrideOf(session?.spec.resources, { name: step.name, sandbox: node?.sandbox });
    const constraints = node?.sandbox
      ? sandboxOf(node.sandbox, node.sandboxNamespace)?.spec.constraints
      : undefined;
    return {
      sandboxId: node?.sandbox ?? '',
      cpu: override?.cpu ?? constraints?.cpu ?? DEFAULTS.cpu,
      memory: override?.memory ?? constraints?.memory ?? DEFAULTS.memory,
      disk: override?.disk ?? constraints?.disk ?? DEFAULTS.disk,
    };
  };
}

/** allocationFrom over the caches: the run's session, its workflow and sandboxes (organization namespace). */
export async function allocationForRun(
  resources: Resources,
  run: Run,
  organizationId: string,
): Promise<AllocationOf> {
  const session = resources.sessions.get(run.metadata.namespace!, run.spec.session);
  const orgNamespace = (await resources.namespaceOf(organizationId)) ?? '';
  const workflow = run.spec.workflow
    ? resources.workflows.get(orgNamespace, run.spec.workflow)?.spec
    : undefined;
  return allocationFrom(session, workflow, (name, namespace) =>
    resources.sandboxes.get(namespace ?? orgNamespace, name),
  );
}

type RecordedOutcome = Pick<RunRecordRow, 'organization_id' | 'group_id' | 'status' | 'stopped_at'>;

/**
 * Writes a run's records once, whichever replica (or restart) sees the end first: steps are
 * keyed by run uid + node + attempt (ON CONFLICT DO NOTHING); the run's outcome is replaced only
 * by a later end of the same run (a retry that ends again). The hourly statistics rollup gets,
 * in the same transaction, exactly the rows written here: the steps really inserted (RETURNING),
 * the outcome inserted, or the replaced outcome taken off and the new one added.
 */
export async function saveRunRecords(
  db: Knex,
  records: { run: RunRecordRow; steps: StepRecordRow[] },
): Promise<void> {
  const { run } = records;
  await transaction(db, async (trx) => {
    const rollup = rollupChanges();
    const inserted = await trx('run_records').insert(run).onConflict('run_uid').ignore().returning('run_uid');
    if (inserted.length > 0) rollup.run(run);
    else {
      // Recorded before (committed: a conflicting insert waits for the other transaction). Locked,
      // so that a concurrent replacement of the same run cannot take off the same outcome twice.
      const previous = (await trx('run_records')
        .where('run_uid', run.run_uid)
        .forUpdate()
        .first('organization_id', 'group_id', 'status', 'stopped_at')) as RecordedOutcome | undefined;
      const { run_uid, ...changes } = run;
      const replaced = previous
        ? await trx('run_records')
            .where('run_uid', run_uid)
            .where('stopped_at', '<', run.stopped_at)
            .update(changes)
            .returning('run_uid')
        : [];
      if (previous && replaced.length > 0) {
        rollup.run(previous, -1);
        rollup.run(run);
      }
    }
    for (let i = 0; i < records.steps.length; i += 500) {
      const batch = records.steps.slice(i, i + 500);
      const written: { node_id: string; attempt: string }[] = await trx('step_records')
        .insert(batch)
        .onConflict(['run_uid', 'node_id', 'attempt'])
        .ignore()
        .returning(['node_id', 'attempt']);
      const keys = new Set(written.map((w) => `${w.node_id} ${w.attempt}`));
      // A key twice in one batch is inserted once: counted once.
      for (const step of batch) if (keys.delete(`${step.node_id} ${step.attempt}`)) rollup.step(step);
    }
    await rollup.save(trx);
  });
}

/**
 * Records every run that ends, from the API's watch of Runs, and — once the caches have synced,
 * at every start — every ended Run object there is, so a run that ended while no API was up is
 * not lost.
 */
export function recordRuns(deps: { db: Knex; resources: Resources; logger: Logger }) {
  const { db, resources, logger } = deps;
  let queue = Promise.resolve();
  /** Ends this process wrote already (`uid stopTime`): later status writes of a run skip the database. */
  const written = new Set<string>();

  async function record(run: Run) {
    if (!ENDED.has(run.status?.phase ?? '')) return;
    const key = `${run.metadata.uid} ${run.status?.stopTime} ${run.status?.sandboxStatuses?.length ?? 0}`;
    if (written.has(key)) return;
    const organizationId = await resources.organizationOf(run);
    if (!organizationId) return;
    const session = resources.sessions.get(run.metadata.namespace!, run.spec.session);
    const allocation = await allocationForRun(resources, run, organizationId);
    const records = recordsOfRun(run, organizationId, allocation, session?.spec.name ?? run.spec.name ?? '');
    if (!records) return;
    await saveRunRecords(db, records);
    written.add(key);
  }

  const enqueue = (run: Run) => {
    queue = queue
      .then(() => record(run))
      .catch((error: unknown) =>
        logger.error({ err: error, run: run.metadata.name }, 'recording a run failed'),
      );
  };

  void resources.synced.then(() => {
    for (const run of resources.runs.list()) enqueue(run);
  });
  const unsubscribe = resources.onRunEvent((type, run) => {
    if (type === 'delete') {
      for (const key of written) if (key.startsWith(`${run.metadata.uid} `)) written.delete(key);
    } else enqueue(run);
  });
  return {
    stop() {
      unsubscribe();
      written.clear();
    },
    /** Settles once every run end seen so far is written (or its failure logged). */
    idle: () => queue,
  };
}

export type RunRecorder = ReturnType<typeof recordRuns>;
