// Run: one reconcile reads the Run and its Argo Workflow from the caches and does one thing —
// admission (admission.ts) before the Run has a workflow, else the first pending action
// (actions.ts), else the mirror of Argo's state into the status (status.ts).
import { KINDS, LABELS, type ArgoWorkflow } from '@sandflow/kube';
import type { Context } from '../../context.js';
import { FINAL_RUN_PHASES } from '../../runs/mirror.js';
import { splitKey, type ReconcileResult } from '../base.js';
import { ensureExecutor } from '../executor.js';
import { admit } from './admission.js';
import { actorOf, applyActions, handledOf, hasPendingAction } from './actions.js';
import { writeMirror, writeStatus } from './status.js';

export { ACTION_RULES, actorOf } from './actions.js';
export { demandOf } from './admission.js';
export { adoptCronWorkflow, uuidFrom } from './cron.js';

export async function reconcileRun(ctx: Context, key: string): Promise<ReconcileResult | void> {
  const [namespace, name] = splitKey(key);
  const run = ctx.caches.runs.get(name, namespace);
  if (!run || run.metadata.deletionTimestamp) {
    ctx.active.delete(key);
    ctx.superseded.delete(key);
    return;
  }
  // This version was overwritten by our own last write; the watch brings the newer one (and the key).
  if (ctx.superseded.get(key) === run.metadata.resourceVersion) return;
  ctx.superseded.delete(key);
  const now = new Date();
  const status = run.status ?? {};
  const handled = handledOf(run);
  const final = FINAL_RUN_PHASES.has(status.phase ?? '');
  if (final && !hasPendingAction(run, handled)) {
    ctx.active.delete(key);
    return;
  }

  if (!status.argoWorkflow) {
    if (run.spec.stop) {
      const time = now.toISOString();
      const by = actorOf(run, 'stop', run.spec.owner ?? '');
      await writeStatus(
        ctx,
        run,
        {
          phase: 'STOPPED',
          stopTime: time,
          history: [
            ...(status.history ?? []),
            { ...(by ? { username: by } : {}), action: 'stop', time },
            { action: 'STOPPED', time },
          ],
        },
        { ...handled, stop: true },
      );
      return;
    }
    // The Argo workflow admission creates runs as the executor's ServiceAccount: make it first.
    await ensureExecutor(ctx, namespace!);
    return admit(ctx, run, handled, now);
  }

  // Not in the cache: created moments ago (its add event is on its way) or deleted behind our back.
  const wf =
    ctx.caches.argo.get(status.argoWorkflow, namespace) ??
    (await ctx.kube.get<ArgoWorkflow>(KINDS.argoWorkflow, namespace, status.argoWorkflow));
  if (!wf) {
    if (final) return;
    await writeStatus(
      ctx,
      run,
      {
        phase: 'ERROR',
        stopTime: now.toISOString(),
        message: `Argo workflow ${status.argoWorkflow} is gone`,
        history: [...(status.history ?? []), { action: 'ERROR', time: now.toISOString() }],
      },
      handled,
    );
    ctx.active.delete(key);
    return;
  }

  const owner = run.spec.owner ?? run.metadata.labels?.[LABELS.owner] ?? '';
  if (await applyActions(ctx, run, wf, handled, owner, now)) return;
  await writeMirror(ctx, run, wf, handled, now);
}
