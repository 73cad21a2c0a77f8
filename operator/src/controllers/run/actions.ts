// The actions asked for on the Run object (spec.suspend, spec.stop, spec.retry, spec.restart,
// spec.restartFrom), each allowed only from the states spec 2 §4 allows and otherwise refused with
// the condition ActionAccepted=False. An action is answered once: the answer (history entry,
// condition, new phase) and the record of it (status.handledActions) go out in one status write.
// The history entry names who asked (spec.requestedBy, written by the API with the action), else
// the run's owner.
import type { Run, RunSpec, RunStatus } from '@sandflow/crds';
import {
  KINDS,
  LABELS,
  isAlreadyExists,
  isConflict,
  setCondition,
  stepTaskName,
  type ArgoWorkflow,
} from '@sandflow/kube';
import type { Context } from '../../context.js';
import { resetForRetry } from '../../runs/argo.js';
import { staysOn } from '../../runs/scheduler.js';
import { algorithmOf, compileFor, demandOf, loadInputs, place } from './admission.js';
import { writeStatus } from './status.js';

export type Handled = Required<NonNullable<RunStatus['handledActions']>>;

/** Which run phases each action may be asked from (spec 2 §4). */
export const ACTION_RULES: Record<string, ReadonlySet<string>> = {
  pause: new Set(['RUNNING', 'INIT']),
  resume: new Set(['PAUSED']),
  stop: new Set(['RUNNING', 'PAUSED', 'INIT', 'WAITING', 'QUEUED']),
  retry: new Set(['ERROR']),
  restart: new Set([
    'WAITING',
    'QUEUED',
    'INIT',
    'RUNNING',
    'COMPLETED',
    'ERROR',
    'PAUSED',
    'STOPPED',
    'SKIPPING',
  ]),
  restart_from: new Set(['COMPLETED', 'ERROR', 'STOPPED']),
};

/** What the status records as answered; a Run never answered counts what its spec asked at creation. */
export function handledOf(run: Run): Handled {
  const h = run.status?.handledActions;
  return {
    suspend: h?.suspend ?? false,
    stop: h?.stop ?? false,
    retry: h?.retry ?? (h ? 0 : (run.spec.retry ?? 0)),
    restart: h?.restart ?? (h ? 0 : (run.spec.restart ?? 0)),
    restartFrom: h?.restartFrom ?? (h ? 0 : (run.spec.restartFrom?.request ?? 0)),
  };
}

export function hasPendingAction(run: Run, h: Handled) {
  return (
    (run.spec.retry ?? 0) > h.retry ||
    (run.spec.restart ?? 0) > h.restart ||
    (run.spec.restartFrom?.request ?? 0) > h.restartFrom ||
    Boolean(run.spec.suspend) !== h.suspend ||
    (Boolean(run.spec.stop) && !h.stop)
  );
}

type RequestField = keyof NonNullable<RunSpec['requestedBy']>;
/** The spec field that asks each action (and keys spec.requestedBy). */
const FIELD_OF: Record<string, RequestField> = {
  pause: 'suspend',
  resume: 'suspend',
  stop: 'stop',
  retry: 'retry',
  restart: 'restart',
  restart_from: 'restartFrom',
};

/** The user an action is credited to: who asked it (spec.requestedBy), else the run's owner. */
export function actorOf(run: Run, action: string, owner: string): string {
  const field = FIELD_OF[action];
  return (field && run.spec.requestedBy?.[field]) || owner;
}

const camel = (a: string) =>
  a
    .split('_')
    .map((p) => p[0]!.toUpperCase() + p.slice(1))
    .join('');

/** Answers the first pending action; true when something was written (the watch brings the Run back). */
export async function applyActions(
  ctx: Context,
  run: Run,
  wf: ArgoWorkflow,
  h: Handled,
  owner: string,
  now: Date,
): Promise<boolean> {
  const ns = run.metadata.namespace!;
  const key = `${ns}/${run.metadata.name}`;
  const status = run.status ?? {};
  const phase = status.phase ?? 'INIT';
  const spec = run.spec;
  const wfName = wf.metadata.name!;
  const answer = async (action: string, next: Handled, accepted: boolean, message: string, extra = {}) => {
    const actor = actorOf(run, action, owner);
    const history = accepted
      ? [
          ...((extra as Partial<RunStatus>).history ?? status.history ?? []),
          { ...(actor ? { username: actor } : {}), action, time: now.toISOString() },
        ]
      : undefined;
    await writeStatus(
      ctx,
      run,
      {
        ...extra,
        ...(history ? { history } : {}),
        conditions: setCondition(
          status.conditions,
          {
            type: 'ActionAccepted',
            status: accepted ? 'True' : 'False',
            reason: `${camel(action)}${accepted ? 'Applied' : 'Refused'}`,
            message,
            observedGeneration: run.metadata.generation,
          },
          now,
        ),
      },
      next,
    );
    ctx.log.info({ run: run.metadata.name, action, phase }, accepted ? 'action applied' : 'action refused');
    return true;
  };
  const refuse = (action: string, next: Handled) =>
    answer(
      action,
      next,
      false,
      `${action} is not allowed while the run is ${phase} (allowed from ${[...ACTION_RULES[action]!].join(', ')})`,
    );
  const accept = (action: string, next: Handled, extra: Partial<RunStatus> = {}) =>
    answer(action, next, true, `${action} applied`, extra);
  const holdResources = (demandFrom: Pick<ArgoWorkflow, 'spec'>, cluster = status.clusterManager ?? '') =>
    ctx.active.set(key, { namespace: ns, owner, demand: demandOf(demandFrom), cluster });
  /**
   * Spec 3 §4: a retry or restart of a run whose cluster manager is gone (its agent lost) runs
   * elsewhere — another cluster manager by the organization's algorithm; undefined: it stays.
   */
  const elsewhere = async (demandFrom: Pick<ArgoWorkflow, 'spec'>): Promise<string | undefined> => {
    if (staysOn(ctx.caches.clusterManagers.get(status.clusterManager ?? ''))) return undefined;
    const inputs = await loadInputs(ctx, run);
    if (typeof inputs === 'string') return undefined;
    const org = run.metadata.labels?.[LABELS.organization] ?? inputs.session.spec.organization ?? '';
    const placed = await ctx.admission.lock(async () =>
      place(ctx, key, org, inputs.session, demandOf(demandFrom), algorithmOf(ctx, org)),
    );
    return 'cluster' in placed ? placed.cluster.metadata.name! : undefined;
  };

  if (spec.stop && !h.stop) {
    const next = { ...h, stop: true };
    if (!ACTION_RULES.stop!.has(phase)) return refuse('stop', next);
    await ctx.kube.patch(KINDS.argoWorkflow, ns, wfName, { spec: { shutdown: 'Stop' } });
    return accept('stop', next);
  }
  if (Boolean(spec.suspend) !== h.suspend) {
    const next = { ...h, suspend: Boolean(spec.suspend) };
    const action = spec.suspend ? 'pause' : 'resume';
    if (!ACTION_RULES[action]!.has(phase)) return refuse(action, next);
    await ctx.kube.patch(KINDS.argoWorkflow, ns, wfName, { spec: { suspend: Boolean(spec.suspend) } });
    return accept(action, next);
  }
  if ((spec.retry ?? 0) > h.retry) {
    const next = { ...h, retry: spec.retry ?? 0 };
    if (!ACTION_RULES.retry!.has(phase)) return refuse('retry', next);
    const moved = await elsewhere(wf);
    if (!(await resetArgo(ctx, wf, [], moved))) return true;
    if (moved || !ctx.active.has(key)) holdResources(wf, moved);
    return accept('retry', next, { phase: 'RUNNING', ...(moved ? { clusterManager: moved } : {}) });
  }
  if ((spec.restartFrom?.request ?? 0) > h.restartFrom) {
    const next = { ...h, restartFrom: spec.restartFrom?.request ?? 0 };
    const sandbox = spec.restartFrom?.sandbox ?? '';
    if (!ACTION_RULES.restart_from!.has(phase)) return refuse('restart_from', next);
    if (!(status.workflow?.nodes ?? []).some((n) => n.name === sandbox))
      return answer('restart_from', next, false, `no sandbox named ${sandbox} in this run`);
    if (!(await resetArgo(ctx, wf, [stepTaskName(sandbox)]))) return true;
    holdResources(wf);
    return accept('restart_from', { ...next, stop: Boolean(spec.stop) }, { phase: 'RUNNING' });
  }
  if ((spec.restart ?? 0) > h.restart) {
    const next = {
      ...h,
      restart: spec.restart ?? 0,
      stop: Boolean(spec.stop),
      suspend: Boolean(spec.suspend),
    };
    const inputs = await loadInputs(ctx, run);
    if (typeof inputs === 'string') return refuse('restart', next);
    const newName = `${run.metadata.name}-r${spec.restart}`;
    const compiled = compileFor(ctx, run, inputs, newName);
    const moved = await elsewhere(compiled);
    compiled.metadata.labels![LABELS.clusterManager] = moved ?? status.clusterManager ?? '';
    if (wfName !== newName) await ctx.kube.delete(KINDS.argoWorkflow, ns, wfName);
    try {
      await ctx.kube.create(KINDS.argoWorkflow, ns, compiled);
    } catch (e) {
      if (!isAlreadyExists(e)) throw new Error(`creating Argo workflow ${newName} failed`, { cause: e });
    }
    holdResources(compiled, moved);
    return accept('restart', next, {
      phase: 'INIT',
      argoWorkflow: newName,
      ...(moved ? { clusterManager: moved } : {}),
      sandboxStatuses: (status.workflow?.nodes ?? []).map((n) => ({
        id: n.id,
        name: n.name,
        status: 'WAITING',
        history: [],
      })),
      stopTime: null as unknown as string, // merge patch: remove
      history: [...(status.history ?? [])],
    });
  }
  return false;
}

/** Tries of the reset against concurrent writers (the runner's status writes) before the reconcile is requeued. */
const RESET_ATTEMPTS = 5;

/**
 * Resets the Argo workflow's nodes as `argo retry` does. A stopped or suspended workflow is first let
 * go (false: the reset follows when the watch brings the change). Argo has no status subresource, so
 * the reset is an update of the whole workflow conditional on the resourceVersion it was computed
 * from: a spec patch or a status write that came in between is never overwritten. On a conflict the
 * workflow is read again and the reset worked out anew from what is there now.
 */
async function resetArgo(
  ctx: Context,
  cached: ArgoWorkflow,
  tasks: string[],
  clusterManager?: string,
): Promise<boolean> {
  const ns = cached.metadata.namespace!;
  const name = cached.metadata.name!;
  let wf = cached;
  for (let attempt = 1; ; attempt++) {
    if (wf.spec.shutdown || wf.spec.suspend) {
      await ctx.kube.patch(KINDS.argoWorkflow, ns, name, { spec: { shutdown: null, suspend: false } });
      return false;
    }
    try {
      const metadata = clusterManager
        ? { ...wf.metadata, labels: { ...wf.metadata.labels, [LABELS.clusterManager]: clusterManager } }
        : wf.metadata;
      await ctx.kube.replace(KINDS.argoWorkflow, ns, name, {
        ...wf,
        metadata,
        status: resetForRetry(wf, tasks),
      });
      return true;
    } catch (e) {
      // Past the last try the conflict goes up as it is: the reconcile is requeued with backoff.
      if (!isConflict(e) || attempt >= RESET_ATTEMPTS) throw e;
    }
    const fresh = await ctx.kube.get<ArgoWorkflow>(KINDS.argoWorkflow, ns, name);
    if (!fresh) return false; // deleted meanwhile: the next reconcile reports it gone
    wf = fresh;
  }
}
