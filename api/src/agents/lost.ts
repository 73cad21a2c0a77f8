// The status a workflow gets when its agent went silent: as Argo marks a workflow whose pods vanished
// with their node — the workflow and every unfinished node Error, with a message naming the manager.
import { FINAL_NODE_PHASES, type ArgoWorkflow } from '@sandflow/kube';

export function lostStatus(
  wf: ArgoWorkflow,
  message: string,
  now: Date,
): NonNullable<ArgoWorkflow['status']> {
  const at = now.toISOString();
  const nodes = Object.fromEntries(
    Object.entries(wf.status?.nodes ?? {}).map(([id, n]) => [
      id,
      FINAL_NODE_PHASES.has(n.phase ?? '') ? n : { ...n, phase: 'Error', message, finishedAt: at },
    ]),
  );
  return { ...wf.status, phase: 'Error', message, finishedAt: at, nodes };
}
