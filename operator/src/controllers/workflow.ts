// Workflow: validation on every change → status.valid, phase, errors, condition Valid, observedGeneration.
import { validateWorkflow, type Sandbox, type Workflow } from '@sandflow/crds';
import type { Context } from '../context.js';
import { ANNOTATIONS, KINDS, sameJson } from '@sandflow/kube';
import { splitKey, type ReconcileResult } from './base.js';

export async function reconcileWorkflow(ctx: Context, key: string): Promise<ReconcileResult | void> {
  const [namespace, name] = splitKey(key);
  const wf = ctx.caches.workflows.get(name, namespace);
  if (!wf || wf.metadata.deletionTimestamp) return;
  const now = new Date();
  const lookup = (ns: string, n: string) => ctx.caches.sandboxes.get(n, ns) as Sandbox | undefined;
  const result = validateWorkflow(wf.spec, {
    resolveSandbox: (node) =>
      node.sandbox ? lookup(node.sandboxNamespace ?? namespace!, node.sandbox) : undefined,
    executor: { id: wf.spec.owner ?? '', groups: executorGroups(wf as Workflow) },
    now,
    ...(wf.metadata.generation !== undefined ? { generation: wf.metadata.generation } : {}),
  });
  const status = result.status;
  const prev = (wf as Workflow).status;
  const prevCond = prev?.conditions?.find((c) => c.type === 'Valid');
  const cond = status.conditions![0]!;
  if (prevCond && prevCond.status === cond.status) cond.lastTransitionTime = prevCond.lastTransitionTime;
  if (sameJson(prev, { ...prev, ...status })) return;
  await ctx.kube.patchStatus(KINDS.workflow, namespace, name, status);
  ctx.log.info(
    { workflow: name, namespace, resourceVersion: wf.metadata.resourceVersion, valid: status.valid },
    'workflow validated',
  );
}

/** The owner's groups as the API last saw them, and those the workflow is shared with. */
function executorGroups(wf: Workflow): string[] {
  const saved = wf.metadata?.annotations?.[ANNOTATIONS.ownerGroups]?.split(',').filter(Boolean) ?? [];
  return [...new Set([...saved, ...(wf.spec.visibility?.groups ?? [])])];
}
