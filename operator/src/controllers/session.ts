// Session: periodic schedules → CronWorkflows (owned by the Session, suspended outside their
// [start, end] window or when the session is suspended; their workflows are created suspended so
// each becomes a Run that goes through admission); one-off schedules → a Run at the start time
// (a deterministic name, so never twice); status: phase, nextRun, runCount, running, error.
import type { Run, Sandbox, Session, Workflow } from '@sandflow/crds';
import { KINDS, LABELS, isAlreadyExists, sameJson, setCondition } from '@sandflow/kube';
import { CompileError, compileSession, nextRun } from '../compiler/index.js';
import type { Context } from '../context.js';
import { splitKey, type ReconcileResult } from './base.js';
import { ensureExecutor } from './executor.js';
import { uuidFrom } from './run/index.js';

const HOUR = 3_600_000;

export async function reconcileSession(ctx: Context, key: string): Promise<ReconcileResult | void> {
  const [namespace, name] = splitKey(key);
  const session = ctx.caches.sessions.get(name, namespace);
  if (!session || session.metadata.deletionTimestamp) return;
  const now = new Date();
  const status = session.status ?? {};
  const wfNs = session.spec.workflowNamespace ?? namespace!;
  const workflow =
    ctx.caches.workflows.get(session.spec.workflow, wfNs) ??
    (await ctx.kube.get<Workflow>(KINDS.workflow, wfNs, session.spec.workflow));
  const sandboxes: Sandbox[] = [];
  for (const n of workflow?.spec.nodes ?? []) {
    const sb = n.sandbox ? ctx.caches.sandboxes.get(n.sandbox, n.sandboxNamespace ?? wfNs) : undefined;
    if (sb) sandboxes.push(sb);
  }
  let wake: number | undefined;
  const soon = (at: number) => {
    const ms = Math.max(0, Math.min(at - now.getTime(), HOUR));
    if (wake === undefined || ms < wake) wake = ms;
  };
  let conditions = status.conditions;
  let phase: NonNullable<Session['status']>['phase'] = session.spec.suspend ? 'Suspended' : 'Active';
  let cronNames: string[] = status.cronWorkflows ?? [];

  if (!workflow) {
    phase = 'Invalid';
    // No polling: the Workflow's arrival requeues every Session naming it (manager.ts).
    conditions = setCondition(
      conditions,
      {
        type: 'Ready',
        status: 'False',
        reason: 'WorkflowNotFound',
        message: `workflow ${wfNs}/${session.spec.workflow} not found`,
      },
      now,
    );
  } else {
    try {
      const compiled = compileSession(
        {
          workflow,
          session,
          sandboxes,
          options: ctx.options.compiler,
          executor: { id: workflow.spec.owner ?? '', groups: workflow.spec.visibility?.groups ?? [] },
        },
        now,
      );
      // Periodic schedules: Argo runs what they make as the executor's ServiceAccount.
      if (compiled.cronWorkflows.length > 0) await ensureExecutor(ctx, namespace!);
      const wanted = new Set<string>();
      for (const cwf of compiled.cronWorkflows) {
        const cname = cwf.metadata!.name!;
        wanted.add(cname);
        cwf.spec.workflowSpec.suspend = true; // held until the operator admits the Run it becomes
        cwf.spec.startingDeadlineSeconds = 300;
        const existing = ctx.caches.cronWorkflows.get(cname, namespace);
        if (!existing)
          await ctx.kube.create(KINDS.cronWorkflow, namespace, cwf).catch((e: unknown) => {
            if (!isAlreadyExists(e)) throw e; // made by the last reconcile, not cached yet
          });
        else if (!sameJson(existing.spec, cwf.spec))
          await ctx.kube.patch(KINDS.cronWorkflow, namespace, cname, { spec: cwf.spec });
      }
      for (const old of cronNames)
        if (!wanted.has(old)) await ctx.kube.delete(KINDS.cronWorkflow, namespace, old);
      cronNames = [...wanted];
      for (const s of compiled.schedules) {
        if (s.kind !== 'cron') continue;
        const start = Date.parse(s.start) - 60_000;
        if (start > now.getTime()) soon(start);
        if (s.end && Date.parse(s.end) > now.getTime()) soon(Date.parse(s.end) + 1000);
      }
      // One-off schedules.
      for (const at of compiled.oneOff) {
        const t = Date.parse(at);
        if (t > now.getTime()) {
          soon(t);
          continue;
        }
        if (session.spec.suspend) continue;
        const runName = uuidFrom(`${namespace}/${name}/${session.metadata.uid}/once/${at}`);
        if (status.lastRun && Date.parse(status.lastRun) >= t) continue;
        if (ctx.caches.runs.get(runName, namespace)) continue;
        await createRun(ctx, session, runName, 'schedule');
        status.lastRun = now.toISOString();
      }
      conditions = setCondition(
        conditions,
        {
          type: 'Ready',
          status: 'True',
          reason: 'Scheduled',
          message: `${cronNames.length} cron workflow(s), ${compiled.oneOff.length} one-off run(s)`,
        },
        now,
      );
    } catch (e) {
      phase = 'Invalid';
      const message = e instanceof CompileError ? e.message : (e as Error).message;
      if (!(e instanceof CompileError)) throw new Error(`reconciling session ${key} failed`, { cause: e });
      conditions = setCondition(
        conditions,
        { type: 'Ready', status: 'False', reason: 'CompileFailed', message },
        now,
      );
    }
  }

  const runs = ctx.caches.runs.byIndex('session', `${namespace}/${name}`);
  const next = nextRun(session.spec.schedules ?? [], now);
  if (phase === 'Active' && !next && (session.spec.schedules ?? []).length > 0) phase = 'Completed';
  const latest = [...runs]
    .sort((a, b) => (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? ''))
    .pop();
  const nextStatus = {
    ...status,
    phase,
    conditions,
    observedGeneration: session.metadata.generation,
    cronWorkflows: cronNames,
    runCount: runs.length,
    hasRuns: runs.length > 0,
    running: runs.some((r) => r.status?.phase === 'RUNNING'),
    error: latest?.status?.phase === 'ERROR',
    ...(next ? { nextRun: next.toISOString() } : {}),
  };
  if (!next) delete (nextStatus as { nextRun?: string }).nextRun;
  if (!sameJson(status, nextStatus)) {
    await ctx.kube.patchStatus(
      KINDS.session,
      namespace,
      name,
      { ...nextStatus, ...(next ? {} : { nextRun: null }) },
      { resourceVersion: session.metadata.resourceVersion! },
    );
  }
  return wake !== undefined ? { requeueAfterMs: wake } : undefined;
}

export async function createRun(
  ctx: Context,
  session: Session,
  runName: string,
  trigger: 'schedule' | 'manual' | 'event',
): Promise<void> {
  const labels = {
    ...(session.metadata.labels ?? {}),
    [LABELS.session]: session.metadata.name!,
    [LABELS.run]: runName,
  };
  try {
    await ctx.kube.create<Run>(KINDS.run, session.metadata.namespace, {
      apiVersion: 'sandflow.io/v1alpha1',
      kind: 'Run',
      metadata: { name: runName, namespace: session.metadata.namespace, labels },
      spec: {
        session: session.metadata.name!,
        workflow: session.spec.workflow,
        name: session.spec.name,
        trigger,
        ...(session.spec.owner ? { owner: session.spec.owner } : {}),
        ...(session.spec.group ? { group: session.spec.group } : {}),
      },
    });
    ctx.log.info(
      { session: session.metadata.name, run: runName, namespace: session.metadata.namespace },
      trigger === 'event' ? 'run created for an event' : 'run created for a one-off schedule',
    );
  } catch (e) {
    if (!isAlreadyExists(e)) throw new Error(`creating run ${runName} failed`, { cause: e });
  }
}
