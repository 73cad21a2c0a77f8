import type { Workflow } from '@sandflow/crds';
import { KINDS, LABELS, sameJson } from '@sandflow/kube';
import type { Permission, ResourceKind } from './types.js';

export type WorkflowObject = Workflow;

/**
 * Workflows are read by the sandbox routes (which workflows use a sandbox) and watched for the
 * audit log; their routes come next and reuse this kind. A group visibility grants its groups
 * view and use.
 */
export const WORKFLOW_KIND: ResourceKind<Workflow> = {
  kind: KINDS.workflow,
  title: 'Workflow',
  events: 'workflows',
  access: (o) => {
    const visibility = o.spec.visibility;
    const type = visibility?.type ?? 'private';
    const permissions: Record<string, Permission> =
      type === 'group'
        ? Object.fromEntries((visibility?.groups ?? []).map((g) => [g, { read: true, execute: true }]))
        : {};
    return {
      owner: o.spec.owner || o.metadata.labels?.[LABELS.owner] || undefined,
      permissions,
      visibility: { type, locked: false },
    };
  },
  displayName: (o) => o.spec?.name || o.metadata.name!,
  changeAction(before, after) {
    if (
      before &&
      Object.keys({ ...before, ...after }).every(
        (k) => k === 'name' || sameJson(before[k as 'name'], after[k as 'name']),
      )
    )
      return 'rename';
    return 'update';
  },
};

/** The sandboxes (namespace/name) a workflow's nodes run. */
export function sandboxesOf(workflow: Workflow): string[] {
  const namespace = workflow.metadata.namespace!;
  return (workflow.spec.nodes ?? [])
    .filter((n) => n.sandbox)
    .map((n) => `${n.sandboxNamespace ?? namespace}/${n.sandbox}`);
}
