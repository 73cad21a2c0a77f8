// Cron adoption: a Workflow made by a CronWorkflow of a session gets a Run (trigger schedule) that
// adopts it, so it goes through admission like any other run.
import { createHash } from 'node:crypto';
import type { Run } from '@sandflow/crds';
import { ANNOTATIONS, KINDS, LABELS, isAlreadyExists, type ArgoWorkflow } from '@sandflow/kube';
import type { Context } from '../../context.js';

export async function adoptCronWorkflow(ctx: Context, wf: ArgoWorkflow): Promise<void> {
  const labels = wf.metadata.labels ?? {};
  if (!labels[LABELS.cronWorkflow] || !labels[LABELS.session] || labels[LABELS.run]) return;
  const ns = wf.metadata.namespace!;
  const session = ctx.caches.sessions.get(labels[LABELS.session]!, ns);
  const name = uuidFrom(`${ns}/${wf.metadata.name}/${wf.metadata.uid}`);
  const { [LABELS.cronWorkflow]: _cron, ...inherited } = labels;
  const body: Run = {
    apiVersion: 'sandflow.io/v1alpha1',
    kind: 'Run',
    metadata: {
      name,
      namespace: ns,
      labels: { ...inherited, [LABELS.run]: name },
      annotations: { [ANNOTATIONS.argoWorkflow]: wf.metadata.name! },
    },
    spec: {
      session: labels[LABELS.session]!,
      ...(labels[LABELS.workflow] ? { workflow: labels[LABELS.workflow] } : {}),
      name: `${session?.spec.name ?? 'run'} ${wf.metadata.annotations?.[ANNOTATIONS.scheduledTime] ?? ''}`.trim(),
      trigger: 'schedule',
      ...(session?.spec.owner ? { owner: session.spec.owner } : {}),
      ...(session?.spec.group ? { group: session.spec.group } : {}),
    },
  };
  try {
    await ctx.kube.create(KINDS.run, ns, body);
  } catch (e) {
    if (!isAlreadyExists(e)) throw new Error(`creating the Run of ${wf.metadata.name} failed`, { cause: e });
  }
}

/** A deterministic RFC 4122-shaped id (v5-like, sha1) for names the operator derives. */
export function uuidFrom(seed: string): string {
  const h = createHash('sha1').update(seed).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h.slice(16, 18), 16) & 0x3f) | 0x80).toString(16)}${h.slice(18, 20)}-${h.slice(20, 32)}`;
}
