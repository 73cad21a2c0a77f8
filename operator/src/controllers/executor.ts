// The ServiceAccount Argo's workflow pods run as. On a real Argo each step's executor reports the
// step's outputs as a WorkflowTaskResult (argoproj.io), which a namespace's `default` ServiceAccount
// may not write. So in every namespace where the operator has Argo run something, it makes the
// ServiceAccount `sandflow-workflow` and a RoleBinding of it to the chart's executor ClusterRole
// (workflowtaskresults create and patch, nothing more: Argo's documented minimum for its emissary
// executor), and compiles workflows with that serviceAccountName. The operator may only `bind` that
// one ClusterRole (the chart's RBAC), so it cannot hand out anything else this way.
//
// Configured by the executor ClusterRole's name (cluster mode: SANDFLOW_EXECUTOR_CLUSTERROLE, set by
// the chart); without one (the all-in-one mode, where the local runner plays Argo) nothing is made.
import {
  PatchStrategy,
  setHeaderOptions,
  type V1RoleBinding,
  type V1ServiceAccount,
} from '@kubernetes/client-node';
import { isAlreadyExists, type Kind } from '@sandflow/kube';
import type { CompilerOptions } from '../compiler/index.js';
import type { Context } from '../context.js';

export const EXECUTOR_SERVICE_ACCOUNT = 'sandflow-workflow';
/** On the ServiceAccount and RoleBinding the operator made (or adopted). */
export const EXECUTOR_LABELS = {
  'app.kubernetes.io/managed-by': 'sandflow-operator',
  'app.kubernetes.io/component': 'workflow-executor',
} as const;

export interface ExecutorOptions {
  /** The ClusterRole with what Argo's executor needs (the chart's `<release>-workflow-executor`). */
  clusterRole: string;
  /** The ServiceAccount workflows run as (default sandflow-workflow). */
  serviceAccountName?: string;
}

const RBAC_GROUP = 'rbac.authorization.k8s.io';
export const ROLE_BINDINGS: Kind = {
  group: RBAC_GROUP,
  version: 'v1',
  plural: 'rolebindings',
  namespaced: true,
};

const hasLabels = (labels: Record<string, string> | undefined) =>
  Object.entries(EXECUTOR_LABELS).every(([k, v]) => labels?.[k] === v);

/** The RoleBinding of `serviceAccount` to the executor ClusterRole (named after the ClusterRole). */
export function executorRoleBinding(namespace: string, options: ExecutorOptions): V1RoleBinding {
  return {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'RoleBinding',
    metadata: { name: options.clusterRole, namespace, labels: { ...EXECUTOR_LABELS } },
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: options.clusterRole },
    subjects: [
      {
        kind: 'ServiceAccount',
        name: options.serviceAccountName ?? EXECUTOR_SERVICE_ACCOUNT,
        namespace,
      },
    ],
  };
}

/**
 * Makes sure the executor's ServiceAccount and RoleBinding exist in `namespace` before the operator
 * creates an Argo Workflow or CronWorkflow there. Idempotent: what exists is kept (a ServiceAccount
 * of that name made by someone else is labelled and used; a RoleBinding of ours whose subjects
 * drifted is put back). Once done in a namespace it is not asked again this leadership term (until
 * the namespace is deleted: see forgetExecutor). Without an executor ClusterRole configured: nothing.
 */
export async function ensureExecutor(ctx: Context, namespace: string): Promise<void> {
  const options = ctx.options.executor;
  if (!options || ctx.executorNamespaces.has(namespace)) return;
  const name = options.serviceAccountName ?? EXECUTOR_SERVICE_ACCOUNT;
  const core = ctx.kube.core;
  const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
  let made = false;

  const sa: V1ServiceAccount = {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name, namespace, labels: { ...EXECUTOR_LABELS } },
  };
  try {
    await core.createNamespacedServiceAccount({ namespace, body: sa });
    made = true;
  } catch (e) {
    if (!isAlreadyExists(e))
      throw new Error(`creating ServiceAccount ${namespace}/${name} failed`, { cause: e });
    const existing = await core.readNamespacedServiceAccount({ name, namespace });
    if (!hasLabels(existing.metadata?.labels))
      await core.patchNamespacedServiceAccount(
        { name, namespace, body: { metadata: { labels: EXECUTOR_LABELS } } },
        merge,
      );
  }

  const binding = executorRoleBinding(namespace, options);
  const bindingName = binding.metadata!.name!;
  try {
    await ctx.kube.create(ROLE_BINDINGS, namespace, binding);
    made = true;
  } catch (e) {
    if (!isAlreadyExists(e))
      throw new Error(`creating RoleBinding ${namespace}/${bindingName} failed`, { cause: e });
    const existing = await ctx.kube.get<V1RoleBinding>(ROLE_BINDINGS, namespace, bindingName);
    if (!existing) throw new Error(`RoleBinding ${namespace}/${bindingName} exists and is gone again`);
    const ref = existing.roleRef;
    // roleRef cannot change: a binding of that name to another role is not ours to repair.
    if (ref.kind !== 'ClusterRole' || ref.name !== options.clusterRole)
      throw new Error(
        `RoleBinding ${namespace}/${bindingName} binds ${ref.kind} ${ref.name}, not ClusterRole ${options.clusterRole}`,
      );
    const subjects = existing.subjects ?? [];
    const want = binding.subjects![0]!;
    const same =
      subjects.length === 1 &&
      subjects[0]!.kind === want.kind &&
      subjects[0]!.name === want.name &&
      subjects[0]!.namespace === want.namespace;
    if (!same || !hasLabels(existing.metadata?.labels))
      await ctx.kube.patch(ROLE_BINDINGS, namespace, bindingName, {
        metadata: { labels: EXECUTOR_LABELS },
        subjects: binding.subjects,
      });
  }

  ctx.executorNamespaces.add(namespace);
  if (made)
    ctx.log.info(
      { namespace, serviceAccount: name, clusterRole: options.clusterRole },
      'workflow executor ServiceAccount bound',
    );
}

/** The compiler's options: with an executor, every Argo workflow runs as its ServiceAccount. */
export function withExecutor(
  compiler: CompilerOptions | undefined,
  executor: ExecutorOptions | undefined,
): CompilerOptions {
  if (!executor) return { ...compiler };
  return { ...compiler, serviceAccountName: executor.serviceAccountName ?? EXECUTOR_SERVICE_ACCOUNT };
}

/** A deleted namespace takes the ServiceAccount and RoleBinding with it: make them again if it returns. */
export function forgetExecutor(ctx: Context, namespace: string): void {
  ctx.executorNamespaces.delete(namespace);
}
