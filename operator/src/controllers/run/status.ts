// Writing the Run status: every write carries the handled actions and the observed generation, and is
// conditional on the resourceVersion the reconcile read, so a write from a stale cache fails (409)
// instead of undoing a newer one. The mirror of Argo's node tree is written only when it changed.
import type { Run, RunStatus } from '@sandflow/crds';
import { KINDS, keyOf, sameJson, type ArgoWorkflow } from '@sandflow/kube';
import type { Context } from '../../context.js';
import { FINAL_RUN_PHASES, mirror } from '../../runs/mirror.js';
import type { Handled } from './actions.js';

export async function writeStatus(ctx: Context, run: Run, status: Partial<RunStatus>, handled: Handled) {
  const read = run.metadata.resourceVersion!;
  const written = await ctx.kube.patchStatus<Run>(
    KINDS.run,
    run.metadata.namespace,
    run.metadata.name!,
    { ...status, handledActions: handled, observedGeneration: run.metadata.generation },
    { resourceVersion: read },
  );
  // Until the watch brings the version this write made, the cached one is known to be stale (a write
  // that changed nothing keeps the version, and the cached object is still the latest).
  if (written.metadata.resourceVersion !== read) ctx.superseded.set(keyOf(run), read);
}

/** Argo's state → the Run status; wakes what a phase change concerns (queued runs, the session). */
export async function writeMirror(ctx: Context, run: Run, wf: ArgoWorkflow, handled: Handled, now: Date) {
  const namespace = run.metadata.namespace!;
  const status = run.status ?? {};
  const stopped = Boolean(wf.spec.shutdown) && handled.stop;
  const paused = Boolean(wf.spec.suspend);
  const host =
    ctx.caches.clusterManagers.get(status.clusterManager ?? '')?.spec.address ?? status.clusterManager;
  const next = mirror({ run, wf, now, stopped, paused, ...(host ? { host } : {}) });
  const patch: Partial<RunStatus> = { ...next };
  if (!FINAL_RUN_PHASES.has(next.phase ?? '')) patch.stopTime = null as unknown as string; // merge patch: remove
  const comparable = (s: Partial<RunStatus>) => ({
    ...s,
    duration: undefined,
    stopTime: s.stopTime ?? undefined,
    history: s.history?.length,
    handledActions: undefined,
    observedGeneration: undefined,
  });
  const changed =
    !sameJson(comparable(status), comparable({ ...status, ...patch })) ||
    status.observedGeneration !== run.metadata.generation;
  if (changed || (next.phase === 'RUNNING' && status.duration !== next.duration)) {
    await writeStatus(ctx, run, patch, handled);
    if (status.phase !== next.phase)
      ctx.log.info(
        { run: run.metadata.name, namespace, phase: next.phase, argo: wf.status?.phase },
        'run phase',
      );
  }
  if (FINAL_RUN_PHASES.has(next.phase ?? '')) {
    if (ctx.active.delete(keyOf(run)) || status.phase !== next.phase) wakeQueued(ctx, namespace);
  }
  if (status.phase !== next.phase) ctx.enqueue.session(`${namespace}/${run.spec.session}`);
}

/** Room was freed in a namespace: the runs waiting there look again. */
export function wakeQueued(ctx: Context, namespace: string) {
  for (const r of ctx.caches.runs.list(namespace))
    if (r.status?.phase === 'QUEUED' || !r.status?.phase) ctx.enqueue.run(keyOf(r));
}
