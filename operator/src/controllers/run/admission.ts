// Admission of a Run: its inputs (session, workflow, sandboxes) compiled to an Argo Workflow, the
// quotas of the group (ResourceQuota) and of the user in it (namespace annotation) checked against
// the resources held by admitted runs (ctx.active) — above the group's quota, what the automatic
// provisioner lends (admission-provisioner.ts) — a cluster manager chosen; then the Argo Workflow
// owned by the Run is created and the Run goes INIT, or it waits QUEUED.
import type { V1ResourceQuota } from '@kubernetes/client-node';
import type { ClusterManager, Run, RunStatus, Sandbox, Session, Workflow } from '@sandflow/crds';
import {
  ANNOTATIONS,
  KINDS,
  LABELS,
  QUOTA_NAME,
  cpuMillis,
  isAlreadyExists,
  isNotFound,
  memoryMiB,
  setCondition,
  type ArgoWorkflow,
} from '@sandflow/kube';
import { CompileError, compileRun } from '../../compiler/index.js';
import type { Context } from '../../context.js';
import {
  ALGORITHMS,
  ZERO,
  add,
  chooseCluster,
  quotaAllows,
  sub,
  type Algorithm,
  type Resources,
} from '../../runs/scheduler.js';
import type { ReconcileResult } from '../base.js';
import {
  PROVISIONER_ANNOTATION,
  excessOver,
  parseAllowance,
  platformCapacity,
  provisionerDecision,
} from './admission-provisioner.js';
import type { Handled } from './actions.js';
import { writeStatus } from './status.js';

/** The resources a workflow holds while it runs: the largest request of its steps. */
export function demandOf(wf: Pick<ArgoWorkflow, 'spec'>): Resources {
  let d = { ...ZERO };
  for (const t of wf.spec.templates ?? []) {
    const req = (t.container ?? t.script)?.resources?.requests;
    if (!req || t.name === 'sf-split') continue;
    d = {
      cpu: Math.max(d.cpu, cpuMillis(req.cpu)),
      memory: Math.max(d.memory, memoryMiB(req.memory)),
      disk: Math.max(d.disk, memoryMiB(req['ephemeral-storage'])),
    };
  }
  return d;
}

function parseQuota(hard: Record<string, string> | undefined): Partial<Resources> | undefined {
  if (!hard) return undefined;
  return {
    cpu: cpuMillis(hard['requests.cpu'] ?? hard.cpu),
    memory: memoryMiB(hard['requests.memory'] ?? hard.memory),
    disk: memoryMiB(hard['requests.ephemeral-storage'] ?? hard['ephemeral-storage']),
  };
}

export interface Inputs {
  session: Session;
  workflow: Workflow;
  sandboxes: Sandbox[];
}

/** From the caches; the API server only for an object created so recently the watch has not brought it. */
export async function loadInputs(ctx: Context, run: Run): Promise<Inputs | string> {
  const ns = run.metadata.namespace!;
  const session =
    ctx.caches.sessions.get(run.spec.session, ns) ??
    (await ctx.kube.get<Session>(KINDS.session, ns, run.spec.session));
  if (!session) return `session ${run.spec.session} not found`;
  const wfNs = session.spec.workflowNamespace ?? ns;
  const wfName = run.spec.workflow ?? session.spec.workflow;
  const workflow =
    ctx.caches.workflows.get(wfName, wfNs) ?? (await ctx.kube.get<Workflow>(KINDS.workflow, wfNs, wfName));
  if (!workflow) return `workflow ${wfNs}/${wfName} not found`;
  const sandboxes: Sandbox[] = [];
  for (const n of workflow.spec.nodes ?? []) {
    if (!n.sandbox) continue;
    const sns = n.sandboxNamespace ?? wfNs;
    const sb =
      ctx.caches.sandboxes.get(n.sandbox, sns) ??
      (await ctx.kube.get<Sandbox>(KINDS.sandbox, sns, n.sandbox));
    if (sb && !sandboxes.includes(sb)) sandboxes.push(sb);
  }
  return { session, workflow, sandboxes };
}

export function compileFor(ctx: Context, run: Run, inputs: Inputs, wfName: string): ArgoWorkflow {
  const compiled = compileRun({
    ...inputs,
    run: { name: run.metadata.name!, uid: run.metadata.uid! },
    options: ctx.options.compiler,
    executor: { id: inputs.workflow.spec.owner ?? '', groups: inputs.workflow.spec.visibility?.groups ?? [] },
  });
  compiled.metadata.name = wfName;
  compiled.metadata.namespace = run.metadata.namespace;
  compiled.metadata.labels = { ...compiled.metadata.labels, [LABELS.run]: run.metadata.name! };
  compiled.metadata.ownerReferences = [
    {
      apiVersion: 'sandflow.io/v1alpha1',
      kind: 'Run',
      name: run.metadata.name!,
      uid: run.metadata.uid!,
      controller: true,
    },
  ];
  return compiled;
}

export async function admit(
  ctx: Context,
  run: Run,
  handled: Handled,
  now: Date,
): Promise<ReconcileResult | void> {
  const ns = run.metadata.namespace!;
  const key = `${ns}/${run.metadata.name}`;
  const log = ctx.log.child({ run: run.metadata.name, namespace: ns });
  const status = run.status ?? {};
  const history = [...(status.history ?? [])];
  if (!history.some((h) => h.action === 'created'))
    history.push({
      action: 'created',
      time: run.metadata.creationTimestamp ?? now.toISOString(),
      ...(run.spec.owner ? { username: run.spec.owner } : {}),
    });
  const fail = (reason: string, message: string) =>
    writeStatus(
      ctx,
      run,
      {
        phase: 'ERROR',
        message,
        stopTime: now.toISOString(),
        history: [...history, { action: 'ERROR', time: now.toISOString() }],
        conditions: setCondition(
          status.conditions,
          { type: 'Admitted', status: 'False', reason, message },
          now,
        ),
      },
      handled,
    );
  const inputs = await loadInputs(ctx, run);
  if (typeof inputs === 'string') return fail('InputsMissing', inputs);
  const adopted = run.metadata.annotations?.[ANNOTATIONS.argoWorkflow];
  const wfName = adopted ?? run.metadata.name!;
  let compiled: ArgoWorkflow;
  try {
    compiled = compileFor(ctx, run, inputs, wfName);
  } catch (e) {
    return fail(
      'CompileFailed',
      e instanceof CompileError ? e.message : `compile failed: ${(e as Error).message}`,
    );
  }
  const demand = demandOf(compiled);
  const org = run.metadata.labels?.[LABELS.organization] ?? inputs.session.spec.organization ?? '';
  const owner = run.spec.owner ?? inputs.session.spec.owner ?? '';

  return ctx.admission.lock(async () => {
    const quota = await refusal(ctx, key, ns, org, owner, demand, log);
    const placed =
      'reason' in quota ? quota : place(ctx, key, org, inputs.session, demand, algorithmOf(ctx, org));
    if ('reason' in placed) {
      if (status.phase !== 'QUEUED' || status.message !== placed.reason) {
        await writeStatus(
          ctx,
          run,
          {
            phase: 'QUEUED',
            message: placed.reason,
            history:
              status.phase === 'QUEUED'
                ? history
                : [...history, { action: 'QUEUED', time: now.toISOString() }],
            conditions: setCondition(
              status.conditions,
              { type: 'Admitted', status: 'False', reason: 'Queued', message: placed.reason },
              now,
            ),
          },
          handled,
        );
        log.info({ reason: placed.reason }, 'run queued');
      }
      return { requeueAfterMs: ctx.options.queuedRetryMs };
    }
    const cluster = placed.cluster;
    const borrow = 'borrow' in quota ? quota.borrow : undefined;
    compiled.metadata.labels![LABELS.clusterManager] = cluster.metadata.name!;
    if (run.spec.suspend) compiled.spec.suspend = true;
    await createArgoWorkflow(ctx, run, compiled, adopted);
    ctx.active.set(key, { namespace: ns, owner, demand, cluster: cluster.metadata.name! });
    await writeStatus(
      ctx,
      run,
      {
        phase: 'INIT',
        argoWorkflow: wfName,
        clusterManager: cluster.metadata.name!,
        message: '',
        workflow: {
          name: inputs.workflow.spec.name,
          version: inputs.workflow.spec.version ?? '1.0.0',
          nodes: inputs.workflow.spec.nodes ?? [],
          switches: inputs.workflow.spec.switches ?? [],
          edges: inputs.workflow.spec.edges ?? [],
        } as RunStatus['workflow'],
        sandboxStatuses: (inputs.workflow.spec.nodes ?? []).map((n) => ({
          id: n.id,
          name: n.name,
          status: 'WAITING',
          history: [],
        })),
        history: [...history, { action: 'INIT', time: now.toISOString() }],
        conditions: setCondition(
          status.conditions,
          {
            type: 'Admitted',
            status: 'True',
            reason: 'Admitted',
            message:
              `assigned to ${cluster.metadata.name}` +
              (borrow
                ? `, borrowing ${borrow.cpu}m cpu, ${borrow.memory} MB memory, ` +
                  `${borrow.disk} MB disk above the group quota from the automatic provisioner`
                : ''),
          },
          now,
        ),
      },
      handled,
    );
    log.info({ argo: wfName, cluster: cluster.metadata.name, demand }, 'run admitted');
  });
}

/**
 * Why the group's or the user's quota has no room for `demand`, or what the run borrows above its
 * group's quota from the automatic provisioner (admission-provisioner.ts) when it has none.
 */
async function refusal(
  ctx: Context,
  key: string,
  ns: string,
  org: string,
  owner: string,
  demand: Resources,
  log: Context['log'],
): Promise<{ reason: string } | { borrow?: Resources }> {
  const namespaceObj =
    ctx.caches.namespaces.get(ns) ?? (await ctx.kube.core.readNamespace({ name: ns }).catch(() => undefined));
  const groupQuota = parseQuota((await quotaOf(ctx, ns))?.spec?.hard);
  let usedGroup = { ...ZERO };
  let usedUser = { ...ZERO };
  for (const [k, a] of ctx.active) {
    if (k === key || a.namespace !== ns) continue;
    usedGroup = add(usedGroup, a.demand);
    if (a.owner === owner) usedUser = add(usedUser, a.demand);
  }
  const group = quotaAllows(groupQuota, usedGroup, demand);
  let borrow: Resources | undefined;
  if (group) {
    const decision = provisionerDecision({
      refused: group,
      groupQuota,
      usedGroup,
      demand,
      ...borrowing(ctx, key, org),
    });
    if ('reason' in decision) return decision;
    borrow = decision.borrow;
  }
  const raw = namespaceObj?.metadata?.annotations?.[ANNOTATIONS.userQuotas];
  if (!raw) return borrow ? { borrow } : {};
  try {
    const quotas = JSON.parse(raw) as Record<string, Partial<Resources>>;
    const r = quotaAllows(quotas[owner], usedUser, demand);
    if (r) return { reason: `user ${r}` };
  } catch {
    log.warn({ namespace: ns }, `${ANNOTATIONS.userQuotas} is not JSON`);
  }
  return borrow ? { borrow } : {};
}

/**
 * The provisioner's inputs from the caches: the organization's allowance (its namespace's
 * annotation), what each organization's groups hold above their quotas (the admitted runs but
 * `key`), and the platform's capacity no group quota holds.
 */
function borrowing(ctx: Context, key: string, org: string) {
  const orgNs = org ? organizationNamespaceOf(ctx, org) : undefined;
  const allowance = parseAllowance(orgNs?.metadata?.annotations?.[PROVISIONER_ANNOTATION]);
  const usedBy = new Map<string, Resources>();
  for (const [k, a] of ctx.active)
    if (k !== key) usedBy.set(a.namespace, add(usedBy.get(a.namespace) ?? ZERO, a.demand));
  let borrowedByOrganization = { ...ZERO };
  let borrowedByAll = { ...ZERO };
  for (const [namespace, used] of usedBy) {
    const excess = excessOver(parseQuota(ctx.caches.quotas.get(QUOTA_NAME, namespace)?.spec?.hard), used);
    borrowedByAll = add(borrowedByAll, excess);
    if (org && ctx.caches.namespaces.get(namespace)?.metadata?.labels?.[LABELS.organization] === org)
      borrowedByOrganization = add(borrowedByOrganization, excess);
  }
  const platform = platformCapacity(
    ctx.caches.clusterManagers.list(),
    ctx.caches.quotas
      .list()
      .filter((q) => q.metadata?.name === QUOTA_NAME)
      .map((q) => parseQuota(q.spec?.hard)),
  );
  return { allowance, borrowedByOrganization, borrowedByAll, platform };
}

function organizationNamespaceOf(ctx: Context, org: string) {
  return ctx.caches.namespaces.byIndex('organization', org).find((n) => !n.metadata?.labels?.[LABELS.group]);
}

/** The cluster manager for the run, by the organization's algorithm, or why there is none. */
export function place(
  ctx: Context,
  key: string,
  org: string,
  session: Session,
  demand: Resources,
  algorithm: Algorithm,
): { cluster: ClusterManager } | { reason: string } {
  const preference = session.spec.clusterPreference;
  const candidates = ctx.caches.clusterManagers
    .list()
    .filter((cm) => cm.status?.alive && cm.spec.active !== false)
    .filter((cm) => !(cm.spec.disabledOrganizations ?? []).includes(org))
    .filter((cm) => cm.spec.platformOwned || cm.spec.public || (cm.spec.organizations ?? []).includes(org))
    .filter((cm) => !preference || cm.metadata.name === preference);
  const usedBy = new Map<string, Resources>();
  for (const [k, a] of ctx.active)
    if (k !== key) usedBy.set(a.cluster, add(usedBy.get(a.cluster) ?? ZERO, a.demand));
  const chosen = chooseCluster(
    algorithm,
    candidates.map((cm) => {
      const cap = cm.spec.resources ?? {};
      const capacity = {
        cpu: cap.cpu ?? 0,
        memory: cap.memory ?? 0,
        disk: cap.disk ?? Number.MAX_SAFE_INTEGER,
      };
      return { name: cm.metadata.name!, free: sub(capacity, usedBy.get(cm.metadata.name!) ?? ZERO) };
    }),
    demand,
    ctx.lastCluster.get(org),
  );
  if (!chosen)
    return {
      reason:
        candidates.length === 0
          ? 'no alive, enabled cluster manager'
          : 'no cluster manager has enough free resources',
    };
  ctx.lastCluster.set(org, chosen.name);
  return { cluster: candidates.find((c) => c.metadata.name === chosen.name)! };
}

export function algorithmOf(ctx: Context, org: string): Algorithm {
  if (!org) return 'round_robin';
  const orgNs = organizationNamespaceOf(ctx, org);
  const a = orgNs?.metadata?.annotations?.[ANNOTATIONS.schedulerAlgorithm] as Algorithm | undefined;
  return a && ALGORITHMS.includes(a) ? a : 'round_robin';
}

/**
 * The group's ResourceQuota from the cache; the API server only when the cache has none, so a quota
 * made just before the run (its watch event not yet here) still counts.
 */
async function quotaOf(ctx: Context, ns: string): Promise<V1ResourceQuota | undefined> {
  const cached = ctx.caches.quotas.get(QUOTA_NAME, ns);
  if (cached) return cached;
  try {
    return await ctx.kube.core.readNamespacedResourceQuota({ name: QUOTA_NAME, namespace: ns });
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw new Error(`reading the quota of ${ns} failed`, { cause: e });
  }
}

/**
 * Creates (or adopts) the Argo workflow owned by the Run: the name is deterministic, so a restarted
 * operator finds the one it created before instead of making a second.
 */
async function createArgoWorkflow(
  ctx: Context,
  run: Run,
  compiled: ArgoWorkflow,
  adopted: string | undefined,
) {
  const ns = run.metadata.namespace!;
  const name = compiled.metadata.name!;
  const existing = adopted ? ctx.caches.argo.get(adopted, ns) : undefined;
  if (existing) {
    await ctx.kube.patch(KINDS.argoWorkflow, ns, name, {
      metadata: {
        labels: compiled.metadata.labels,
        ownerReferences: [
          ...(existing.metadata.ownerReferences ?? []).filter((o) => o.kind !== 'Run'),
          ...compiled.metadata.ownerReferences!,
        ],
      },
      spec: { suspend: Boolean(run.spec.suspend) },
    });
    return;
  }
  try {
    await ctx.kube.create<ArgoWorkflow>(KINDS.argoWorkflow, ns, compiled);
  } catch (e) {
    if (!isAlreadyExists(e)) throw new Error(`creating Argo workflow ${name} failed`, { cause: e });
    const found =
      ctx.caches.argo.get(name, ns) ?? (await ctx.kube.get<ArgoWorkflow>(KINDS.argoWorkflow, ns, name));
    if (found && !(found.metadata.ownerReferences ?? []).some((o) => o.uid === run.metadata.uid))
      throw new Error(`Argo workflow ${name} exists and is not owned by this run`);
  }
}
