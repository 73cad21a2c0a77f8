// Run: admission (quota → QUEUED, cluster choice), compile, the Argo Workflow owned by the Run,
// Argo's node tree mirrored into the Run status, and the actions asked for on the Run object
// (spec.suspend, spec.stop, spec.retry, spec.restart, spec.restartFrom), each allowed only from the
// states spec 2 §4 allows and otherwise refused with the condition ActionAccepted=False.
import { createHash } from 'node:crypto';
import {
  LABELS,
  type ClusterManager,
  type Run,
  type RunStatus,
  type Sandbox,
  type Session,
  type Workflow,
} from '@sandflow/crds';
import { CompileError, compileRun } from '../compiler/index.js';
import type { Context } from '../context.js';
import { CRON_WORKFLOW_LABEL, resetForRetry, type ArgoWorkflowObject } from '../runs/argo.js';
import { FINAL_RUN_PHASES, cpuMillis, memoryMB, mirror, taskNameOf } from '../runs/mirror.js';
import {
  ALGORITHMS,
  ZERO,
  add,
  chooseCluster,
  quotaAllows,
  sub,
  type Algorithm,
  type Resources,
} from '../runs/scheduler.js';
import { KINDS, sameJson, setCondition, statusCode } from '../runtime/kube.js';
import { splitKey, type ReconcileResult } from './base.js';

export const ACTIONS_ANNOTATION = 'sandflow.io/actions';
export const ARGO_WORKFLOW_ANNOTATION = 'sandflow.io/argo-workflow';
export const CLUSTER_LABEL = 'sandflow.io/cluster-manager';
export const USER_QUOTAS_ANNOTATION = 'sandflow.io/user-quotas';
export const ALGORITHM_ANNOTATION = 'sandflow.io/scheduler-algorithm';
const QUOTA_NAME = 'sandflow-quota';

interface Handled {
  suspend: boolean;
  stop: boolean;
  retry: number;
  restart: number;
  restartFrom: number;
}

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

const handledOf = (run: Run): Handled | undefined => {
  const raw = run.metadata.annotations?.[ACTIONS_ANNOTATION];
  if (!raw) return undefined;
  try {
    return JSON.parse(raw) as Handled;
  } catch {
    return undefined;
  }
};

export function demandOf(wf: Pick<ArgoWorkflowObject, 'spec'>): Resources {
  let d = { ...ZERO };
  for (const t of wf.spec.templates ?? []) {
    const req = (t.container ?? t.script)?.resources?.requests;
    if (!req || t.name === 'sf-split') continue;
    d = {
      cpu: Math.max(d.cpu, cpuMillis(req.cpu)),
      memory: Math.max(d.memory, memoryMB(req.memory)),
      disk: Math.max(d.disk, memoryMB(req['ephemeral-storage'])),
    };
  }
  return d;
}

function parseQuota(hard: Record<string, string> | undefined): Partial<Resources> | undefined {
  if (!hard) return undefined;
  return {
    cpu: cpuMillis(hard['requests.cpu'] ?? hard.cpu),
    memory: memoryMB(hard['requests.memory'] ?? hard.memory),
    disk: memoryMB(hard['requests.ephemeral-storage'] ?? hard['ephemeral-storage']),
  };
}

export async function reconcileRun(ctx: Context, key: string): Promise<ReconcileResult | void> {
  const [namespace, name] = splitKey(key);
  const run = await ctx.kube.get<Run>(KINDS.run, namespace, name);
  if (!run || run.metadata.deletionTimestamp) {
    ctx.active.delete(key);
    return;
  }
  const log = ctx.log.child({ run: name, namespace, resourceVersion: run.metadata.resourceVersion });
  const now = new Date();
  const status: RunStatus = run.status ?? {};
  const owner = run.spec.owner ?? run.metadata.labels?.[LABELS.owner] ?? '';
  let handled = handledOf(run);
  if (!handled) {
    handled = {
      suspend: false,
      stop: false,
      retry: run.spec.retry ?? 0,
      restart: run.spec.restart ?? 0,
      restartFrom: run.spec.restartFrom?.request ?? 0,
    };
    await ctx.kube.patch(KINDS.run, namespace, name, {
      metadata: { annotations: { [ACTIONS_ANNOTATION]: JSON.stringify(handled) } },
    });
  }

  if (FINAL_RUN_PHASES.has(status.phase ?? '') && !hasPendingAction(run, handled)) {
    ctx.active.delete(key);
    return;
  }

  // ---- not admitted yet
  if (!status.argoWorkflow) {
    if (run.spec.stop) {
      await writeStatus(ctx, run, {
        phase: 'STOPPED',
        stopTime: now.toISOString(),
        history: [
          ...(status.history ?? []),
          { username: owner, action: 'stop', time: now.toISOString() },
          { action: 'STOPPED', time: now.toISOString() },
        ],
      });
      await saveHandled(ctx, run, { ...handled, stop: true });
      return;
    }
    return admit(ctx, run, log, now);
  }

  const wfName = status.argoWorkflow;
  let wf =
    ctx.caches.argo.get(wfName, namespace) ??
    (await ctx.kube.get<ArgoWorkflowObject>(KINDS.argoWorkflow, namespace, wfName));
  if (!wf) {
    // Created moments ago and not in the cache yet, or deleted behind our back.
    wf = await ctx.kube.get<ArgoWorkflowObject>(KINDS.argoWorkflow, namespace, wfName);
    if (!wf && !FINAL_RUN_PHASES.has(status.phase ?? '')) {
      await writeStatus(ctx, run, {
        phase: 'ERROR',
        stopTime: now.toISOString(),
        message: `Argo workflow ${wfName} is gone`,
        history: [...(status.history ?? []), { action: 'ERROR', time: now.toISOString() }],
      });
      ctx.active.delete(key);
      return;
    }
    if (!wf) return;
  }

  // ---- actions
  const acted = await applyActions(ctx, run, wf, handled, owner, now);
  if (acted) return { requeueAfterMs: 0 };

  // ---- mirror
  const stopped = Boolean(wf.spec.shutdown) && handled.stop;
  const paused = Boolean(wf.spec.suspend);
  const host =
    ctx.caches.clusterManagers.get(status.clusterManager ?? '')?.spec.address ?? status.clusterManager;
  const next = mirror({ run, wf, now, stopped, paused, ...(host ? { host } : {}) });
  const patch: Record<string, unknown> = { ...next, observedGeneration: run.metadata.generation };
  if (!FINAL_RUN_PHASES.has(next.phase ?? '')) patch.stopTime = null;
  const changed = !sameJson(
    { ...status, duration: undefined, history: status.history?.length },
    {
      ...status,
      ...patch,
      duration: undefined,
      stopTime: patch.stopTime ?? undefined,
      history: (patch.history as unknown[]).length,
    },
  );
  if (changed || (next.phase === 'RUNNING' && status.duration !== next.duration)) {
    await ctx.kube.patchStatus(KINDS.run, namespace, name, patch);
    if (status.phase !== next.phase) log.info({ phase: next.phase, argo: wf.status?.phase }, 'run phase');
  }
  if (FINAL_RUN_PHASES.has(next.phase ?? '')) {
    if (ctx.active.delete(key) || status.phase !== next.phase) wakeQueued(ctx, namespace!);
    if (status.phase !== next.phase) ctx.enqueue.session(`${namespace}/${run.spec.session}`);
  } else if (status.phase !== next.phase) ctx.enqueue.session(`${namespace}/${run.spec.session}`);
  return undefined;
}

function hasPendingAction(run: Run, h: Handled) {
  return (
    (run.spec.retry ?? 0) > h.retry ||
    (run.spec.restart ?? 0) > h.restart ||
    (run.spec.restartFrom?.request ?? 0) > h.restartFrom ||
    Boolean(run.spec.suspend) !== h.suspend ||
    (Boolean(run.spec.stop) && !h.stop)
  );
}

function wakeQueued(ctx: Context, namespace: string) {
  for (const r of ctx.caches.runs.list(namespace)) {
    if (r.status?.phase === 'QUEUED' || !r.status?.phase) ctx.enqueue.run(`${namespace}/${r.metadata.name}`);
  }
}

async function writeStatus(ctx: Context, run: Run, status: Partial<RunStatus>) {
  await ctx.kube.patchStatus(KINDS.run, run.metadata.namespace, run.metadata.name!, {
    ...status,
    observedGeneration: run.metadata.generation,
  });
}

async function saveHandled(ctx: Context, run: Run, h: Handled) {
  await ctx.kube.patch(KINDS.run, run.metadata.namespace, run.metadata.name!, {
    metadata: { annotations: { [ACTIONS_ANNOTATION]: JSON.stringify(h) } },
  });
}

interface Inputs {
  session: Session;
  workflow: Workflow;
  sandboxes: Sandbox[];
}

async function loadInputs(ctx: Context, run: Run): Promise<Inputs | string> {
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

function compileFor(ctx: Context, run: Run, inputs: Inputs, wfName: string): ArgoWorkflowObject {
  const compiled = compileRun({
    ...inputs,
    run: { name: run.metadata.name!, uid: run.metadata.uid! },
    options: ctx.options.compiler,
    executor: { id: inputs.workflow.spec.owner ?? '', groups: inputs.workflow.spec.visibility?.groups ?? [] },
  }) as unknown as ArgoWorkflowObject;
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

async function admit(
  ctx: Context,
  run: Run,
  log: Context['log'],
  now: Date,
): Promise<ReconcileResult | void> {
  const ns = run.metadata.namespace!;
  const key = `${ns}/${run.metadata.name}`;
  const status = run.status ?? {};
  const inputs = await loadInputs(ctx, run);
  const history = [...(status.history ?? [])];
  if (!history.some((h) => h.action === 'created'))
    history.push({
      action: 'created',
      time: run.metadata.creationTimestamp ?? now.toISOString(),
      ...(run.spec.owner ? { username: run.spec.owner } : {}),
    });
  if (typeof inputs === 'string') {
    await writeStatus(ctx, run, {
      phase: 'ERROR',
      message: inputs,
      stopTime: now.toISOString(),
      history: [...history, { action: 'ERROR', time: now.toISOString() }],
      conditions: setCondition(
        status.conditions,
        { type: 'Admitted', status: 'False', reason: 'InputsMissing', message: inputs },
        now,
      ),
    });
    return;
  }
  const adopted = run.metadata.annotations?.[ARGO_WORKFLOW_ANNOTATION];
  const wfName = adopted ?? run.metadata.name!;
  let compiled: ArgoWorkflowObject;
  try {
    compiled = compileFor(ctx, run, inputs, wfName);
  } catch (e) {
    const message = e instanceof CompileError ? e.message : `compile failed: ${(e as Error).message}`;
    await writeStatus(ctx, run, {
      phase: 'ERROR',
      message,
      stopTime: now.toISOString(),
      history: [...history, { action: 'ERROR', time: now.toISOString() }],
      conditions: setCondition(
        status.conditions,
        { type: 'Admitted', status: 'False', reason: 'CompileFailed', message },
        now,
      ),
    });
    return;
  }
  const demand = demandOf(compiled);
  const org = run.metadata.labels?.[LABELS.organization] ?? inputs.session.spec.organization ?? '';
  const owner = run.spec.owner ?? inputs.session.spec.owner ?? '';

  return ctx.admission.lock(async () => {
    // Quota of the group (ResourceQuota) and of the user in it (namespace annotation).
    let reason: string | undefined;
    // The three reads are independent: made at once, they hold the admission lock for one round trip.
    const [namespaceObj, quotaRead, algorithm] = await Promise.all([
      ctx.kube.core.readNamespace({ name: ns }).catch(() => undefined),
      ctx.kube.core.readNamespacedResourceQuota({ name: QUOTA_NAME, namespace: ns }).then(
        (rq) => ({ rq }),
        (e: unknown) => ({ e }),
      ),
      algorithmOf(ctx, org),
    ]);
    let groupQuota: Partial<Resources> | undefined;
    if ('rq' in quotaRead) groupQuota = parseQuota(quotaRead.rq.spec?.hard);
    else if (statusCode(quotaRead.e) !== 404)
      throw new Error(`reading the quota of ${ns} failed`, { cause: quotaRead.e });
    let usedGroup = { ...ZERO };
    let usedUser = { ...ZERO };
    for (const [k, a] of ctx.active) {
      if (k === key || a.namespace !== ns) continue;
      usedGroup = add(usedGroup, a.demand);
      if (a.owner === owner) usedUser = add(usedUser, a.demand);
    }
    reason = quotaAllows(groupQuota, usedGroup, demand);
    if (!reason) {
      const raw = namespaceObj?.metadata?.annotations?.[USER_QUOTAS_ANNOTATION];
      if (raw) {
        try {
          const quotas = JSON.parse(raw) as Record<string, Partial<Resources>>;
          const r = quotaAllows(quotas[owner], usedUser, demand);
          if (r) reason = `user ${r}`;
        } catch {
          log.warn({ namespace: ns }, `${USER_QUOTAS_ANNOTATION} is not JSON`);
        }
      } else reason = undefined;
    }
    // Cluster choice.
    let cluster: ClusterManager | undefined;
    if (!reason) {
      const preference = inputs.session.spec.clusterPreference;
      const candidates = ctx.caches.clusterManagers
        .list()
        .filter((cm) => cm.status?.alive && cm.spec.active !== false)
        .filter((cm) => !(cm.spec.disabledOrganizations ?? []).includes(org))
        .filter(
          (cm) => cm.spec.platformOwned || cm.spec.public || (cm.spec.organizations ?? []).includes(org),
        )
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
        reason =
          candidates.length === 0
            ? 'no alive, enabled cluster manager'
            : 'no cluster manager has enough free resources';
      else {
        cluster = candidates.find((c) => c.metadata.name === chosen.name);
        ctx.lastCluster.set(org, chosen.name);
      }
    }
    if (reason || !cluster) {
      if (status.phase !== 'QUEUED' || status.message !== reason) {
        await writeStatus(ctx, run, {
          phase: 'QUEUED',
          message: reason,
          history:
            status.phase === 'QUEUED' ? history : [...history, { action: 'QUEUED', time: now.toISOString() }],
          conditions: setCondition(
            status.conditions,
            { type: 'Admitted', status: 'False', reason: 'Queued', message: reason ?? '' },
            now,
          ),
        });
        log.info({ reason }, 'run queued');
      }
      return { requeueAfterMs: ctx.options.queuedRetryMs };
    }

    // Create (or adopt) the Argo workflow owned by the Run: the name is deterministic, so a restarted
    // operator finds the one it created before instead of making a second.
    compiled.metadata.labels![CLUSTER_LABEL] = cluster.metadata.name!;
    if (run.spec.suspend) compiled.spec.suspend = true;
    let wf: ArgoWorkflowObject | undefined;
    if (adopted) {
      wf = await ctx.kube.get<ArgoWorkflowObject>(KINDS.argoWorkflow, ns, adopted);
      if (wf) {
        await ctx.kube.patch(KINDS.argoWorkflow, ns, adopted, {
          metadata: {
            labels: compiled.metadata.labels,
            ownerReferences: [
              ...(wf.metadata.ownerReferences ?? []).filter((o) => o.kind !== 'Run'),
              ...compiled.metadata.ownerReferences!,
            ],
          },
          spec: { suspend: Boolean(run.spec.suspend) },
        });
      }
    }
    if (!wf) {
      try {
        wf = await ctx.kube.create<ArgoWorkflowObject>(KINDS.argoWorkflow, ns, compiled);
      } catch (e) {
        if (statusCode(e) !== 409) throw new Error(`creating Argo workflow ${wfName} failed`, { cause: e });
        wf = await ctx.kube.get<ArgoWorkflowObject>(KINDS.argoWorkflow, ns, wfName);
        if (wf && !(wf.metadata.ownerReferences ?? []).some((o) => o.uid === run.metadata.uid))
          throw new Error(`Argo workflow ${wfName} exists and is not owned by this run`);
      }
    }
    ctx.active.set(key, { namespace: ns, owner, demand, cluster: cluster.metadata.name! });
    await writeStatus(ctx, run, {
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
          message: `assigned to ${cluster.metadata.name}`,
        },
        now,
      ),
    });
    log.info({ argo: wfName, cluster: cluster.metadata.name, demand }, 'run admitted');
    return { requeueAfterMs: 0 };
  });
}

async function algorithmOf(ctx: Context, org: string): Promise<Algorithm> {
  if (!org) return 'round_robin';
  try {
    const list = await ctx.kube.core.listNamespace({ labelSelector: `${LABELS.organization}=${org}` });
    const orgNs = list.items.find((n) => !n.metadata?.labels?.[LABELS.group]);
    const a = orgNs?.metadata?.annotations?.[ALGORITHM_ANNOTATION] as Algorithm | undefined;
    return a && ALGORITHMS.includes(a) ? a : 'round_robin';
  } catch {
    return 'round_robin';
  }
}

/** Applies the first pending action; true when something was done (the caller reconciles again). */
async function applyActions(
  ctx: Context,
  run: Run,
  wf: ArgoWorkflowObject,
  h: Handled,
  owner: string,
  now: Date,
): Promise<boolean> {
  const ns = run.metadata.namespace!;
  const status = run.status ?? {};
  const phase = status.phase ?? 'INIT';
  const time = now.toISOString();
  const spec = run.spec;
  const refuse = async (action: string, next: Handled) => {
    const message = `${action} is not allowed while the run is ${phase} (allowed from ${[...ACTION_RULES[action]!].join(', ')})`;
    await writeStatus(ctx, run, {
      conditions: setCondition(
        status.conditions,
        {
          type: 'ActionAccepted',
          status: 'False',
          reason: `${camel(action)}Refused`,
          message,
          observedGeneration: run.metadata.generation,
        },
        now,
      ),
    });
    await saveHandled(ctx, run, next);
    ctx.log.info({ run: run.metadata.name, action, phase }, 'action refused');
    return true;
  };
  const accept = async (action: string, next: Handled, extra: Partial<RunStatus> = {}) => {
    await writeStatus(ctx, run, {
      ...extra,
      history: [
        ...(extra.history ?? status.history ?? []),
        { ...(owner ? { username: owner } : {}), action, time },
      ],
      conditions: setCondition(
        status.conditions,
        {
          type: 'ActionAccepted',
          status: 'True',
          reason: `${camel(action)}Applied`,
          message: `${action} applied`,
          observedGeneration: run.metadata.generation,
        },
        now,
      ),
    });
    await saveHandled(ctx, run, next);
    ctx.log.info({ run: run.metadata.name, action }, 'action applied');
    return true;
  };
  const wfName = wf.metadata.name!;

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
    await resetArgo(ctx, wf, []);
    ctx.active.set(
      `${ns}/${run.metadata.name}`,
      ctx.active.get(`${ns}/${run.metadata.name}`) ?? {
        namespace: ns,
        owner,
        demand: demandOf(wf),
        cluster: status.clusterManager ?? '',
      },
    );
    return accept('retry', next, { phase: 'RUNNING' });
  }
  if ((spec.restartFrom?.request ?? 0) > h.restartFrom) {
    const next = { ...h, restartFrom: spec.restartFrom?.request ?? 0 };
    const sandbox = spec.restartFrom?.sandbox ?? '';
    if (!ACTION_RULES.restart_from!.has(phase)) return refuse('restart_from', next);
    if (!(status.workflow?.nodes ?? []).some((n) => n.name === sandbox)) {
      await writeStatus(ctx, run, {
        conditions: setCondition(
          status.conditions,
          {
            type: 'ActionAccepted',
            status: 'False',
            reason: 'RestartFromRefused',
            message: `no sandbox named ${sandbox} in this run`,
          },
          now,
        ),
      });
      await saveHandled(ctx, run, next);
      return true;
    }
    await resetArgo(ctx, wf, [taskNameOf(sandbox)]);
    ctx.active.set(`${ns}/${run.metadata.name}`, {
      namespace: ns,
      owner,
      demand: demandOf(wf),
      cluster: status.clusterManager ?? '',
    });
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
    compiled.metadata.labels![CLUSTER_LABEL] = status.clusterManager ?? '';
    if (wfName !== newName) await ctx.kube.delete(KINDS.argoWorkflow, ns, wfName);
    try {
      await ctx.kube.create(KINDS.argoWorkflow, ns, compiled);
    } catch (e) {
      if (statusCode(e) !== 409) throw new Error(`creating Argo workflow ${newName} failed`, { cause: e });
    }
    ctx.active.set(`${ns}/${run.metadata.name}`, {
      namespace: ns,
      owner,
      demand: demandOf(compiled),
      cluster: status.clusterManager ?? '',
    });
    return accept('restart', next, {
      phase: 'INIT',
      argoWorkflow: newName,
      sandboxStatuses: (status.workflow?.nodes ?? []).map((n) => ({
        id: n.id,
        name: n.name,
        status: 'WAITING',
        history: [],
      })),
      stopTime: null as unknown as string,
      history: [...(status.history ?? [])],
    });
  }
  return false;
}

async function resetArgo(ctx: Context, wf: ArgoWorkflowObject, tasks: string[]) {
  const ns = wf.metadata.namespace!;
  const name = wf.metadata.name!;
  for (let attempt = 0; ; attempt++) {
    const fresh = (await ctx.kube.get<ArgoWorkflowObject>(KINDS.argoWorkflow, ns, name))!;
    // Clear the stop/suspension first so the runner (or Argo) carries on once the nodes are reset.
    if (fresh.spec.shutdown || fresh.spec.suspend) {
      await ctx.kube.patch(KINDS.argoWorkflow, ns, name, { spec: { shutdown: null, suspend: false } });
      continue;
    }
    try {
      await ctx.kube.replaceStatus(KINDS.argoWorkflow, ns, name, {
        ...fresh,
        status: resetForRetry(fresh, tasks),
      });
      return;
    } catch (e) {
      if (statusCode(e) !== 409 || attempt > 5)
        throw new Error(`resetting Argo workflow ${name} failed`, { cause: e });
    }
  }
}

const camel = (a: string) =>
  a
    .split('_')
    .map((p) => p[0]!.toUpperCase() + p.slice(1))
    .join('');

/** A Workflow made by a CronWorkflow of a session: give it a Run (trigger schedule) that adopts it. */
export async function adoptCronWorkflow(ctx: Context, wf: ArgoWorkflowObject): Promise<void> {
  const labels = wf.metadata.labels ?? {};
  if (!labels[CRON_WORKFLOW_LABEL] || !labels[LABELS.session] || labels[LABELS.run]) return;
  const ns = wf.metadata.namespace!;
  const session = ctx.caches.sessions.get(labels[LABELS.session]!, ns);
  const name = uuidFrom(`${ns}/${wf.metadata.name}/${wf.metadata.uid}`);
  const body: Run = {
    apiVersion: 'sandflow.io/v1alpha1',
    kind: 'Run',
    metadata: {
      name,
      namespace: ns,
      labels: { ...labels, [LABELS.run]: name },
      annotations: { [ARGO_WORKFLOW_ANNOTATION]: wf.metadata.name! },
    },
    spec: {
      session: labels[LABELS.session]!,
      ...(labels[LABELS.workflow] ? { workflow: labels[LABELS.workflow] } : {}),
      name: `${session?.spec.name ?? 'run'} ${wf.metadata.annotations?.['workflows.argoproj.io/scheduled-time'] ?? ''}`.trim(),
      trigger: 'schedule',
      ...(session?.spec.owner ? { owner: session.spec.owner } : {}),
      ...(session?.spec.group ? { group: session.spec.group } : {}),
    },
  };
  delete body.metadata.labels![CRON_WORKFLOW_LABEL];
  try {
    await ctx.kube.create(KINDS.run, ns, body);
  } catch (e) {
    if (statusCode(e) !== 409)
      throw new Error(`creating the Run of ${wf.metadata.name} failed`, { cause: e });
  }
}

/** A deterministic RFC 4122-shaped id (v5-like, sha1) for names the operator derives. */
export function uuidFrom(seed: string): string {
  const h = createHash('sha1').update(seed).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h.slice(16, 18), 16) & 0x3f) | 0x80).toString(16)}${h.slice(18, 20)}-${h.slice(20, 32)}`;
}
