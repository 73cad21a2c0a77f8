// The controllers of one leadership term, started as kubebuilder's manager does: informers first,
// feeding queues whose workers wait; once every cache has synced and the resources held by admitted
// runs are rebuilt from them, the workers start. Until then admission cannot see a half-empty world
// (after a restart it would admit runs over quota).
import type { V1Namespace, V1ResourceQuota } from '@kubernetes/client-node';
import type { ClusterManager, Run, Sandbox, Session, Workflow } from '@sandflow/crds';
import {
  CORE_KINDS,
  KINDS,
  LABELS,
  FINAL_WORKFLOW_PHASES,
  keyOf,
  splitKey,
  startInformer,
  type ArgoWorkflow,
  type CronWorkflow,
  type EventType,
  type Informer,
  type InformerOptions,
  type Kind,
  type Kube,
} from '@sandflow/kube';
import type { Logger } from 'pino';
import { mutex, type Context } from './context.js';
import { Controller } from './controllers/base.js';
import { ensurePlatformCluster, reconcileClusterManager } from './controllers/clustermanager.js';
import { forgetExecutor, withExecutor } from './controllers/executor.js';
import { adoptCronWorkflow, demandOf, reconcileRun } from './controllers/run/index.js';
import { reconcileSession } from './controllers/session.js';
import { startEventPollers, type EventPollers } from './controllers/session-events.js';
import { reconcileWorkflow } from './controllers/workflow.js';
import type { OperatorOptions } from './index.js';
import { FINAL_RUN_PHASES } from './runs/mirror.js';
import { DEFAULT_PLATFORM_CLUSTER } from './runs/scheduler.js';
import type { Metrics } from './runtime/metrics.js';

/** The namespaced key of the Run an Argo workflow belongs to (by label, else by owner). */
const runKeyOf = (wf: ArgoWorkflow) => {
  const run =
    wf.metadata.labels?.[LABELS.run] ?? wf.metadata.ownerReferences?.find((o) => o.kind === 'Run')?.name;
  return run ? `${wf.metadata.namespace}/${run}` : undefined;
};

export async function startControllers(kube: Kube, log: Logger, metrics: Metrics, options: OperatorOptions) {
  const workers = options.workers ?? 4;
  const controllers: Controller[] = [];
  const informers: Informer<unknown>[] = [];
  // eslint-disable-next-line prefer-const -- assigned once the caches exist, before any worker starts
  let ctx: Context;
  const ctl = (name: string, fn: (ctx: Context, key: string) => Promise<unknown>, n = workers) => {
    const c = new Controller(name, log, metrics, (key) => fn(ctx, key) as never, n, { paused: true });
    controllers.push(c);
    return c;
  };
  const workflowCtl = ctl('workflow', reconcileWorkflow);
  const sessionCtl = ctl('session', reconcileSession, 2);
  const runCtl = ctl('run', reconcileRun);
  const cmCtl = ctl('clustermanager', reconcileClusterManager, 1);
  const adoptCtl = ctl(
    'adopt',
    async (c, key) => {
      const [ns, name] = splitKey(key);
      const wf = c.caches.argo.get(name, ns);
      if (wf) await adoptCronWorkflow(c, wf);
    },
    1,
  );

  const watch = <T extends { metadata?: object }>(
    kind: Kind,
    on: (type: EventType, o: T) => void,
    indexes: Pick<InformerOptions<T>, 'indexes' | 'labelIndexes'> = {},
  ) => {
    const inf = startInformer<T>(kube, kind, { log, on, ...indexes });
    informers.push(inf as Informer<unknown>);
    return inf;
  };
  const tenancy = {
    labelIndexes: { organization: LABELS.organization, group: LABELS.group, owner: LABELS.owner },
  };
  const sandboxes = watch<Sandbox>(KINDS.sandbox, (_t, sb) => {
    // A sandbox change can make workflows valid or invalid.
    for (const w of workflows.list(sb.metadata.namespace)) workflowCtl.add(keyOf(w));
  });
  const workflows = watch<Workflow>(KINDS.workflow, (t, w) => {
    if (t !== 'delete') workflowCtl.add(keyOf(w));
    for (const s of sessions.list()) if (s.spec.workflow === w.metadata.name) sessionCtl.add(keyOf(s));
  });
  // eslint-disable-next-line prefer-const -- assigned once the workers start: the leader's pollers
  let pollers: EventPollers | undefined;
  const sessions = watch<Session>(
    KINDS.session,
    (t, s) => {
      if (t !== 'delete') sessionCtl.add(keyOf(s));
      pollers?.update(t, s);
    },
    tenancy,
  );
  const runs = watch<Run>(
    KINDS.run,
    (t, r) => {
      if (t !== 'delete') runCtl.add(keyOf(r));
      else {
        ctx.active.delete(keyOf(r));
        for (const q of runs.list(r.metadata.namespace))
          if (q.status?.phase === 'QUEUED') runCtl.add(keyOf(q));
        sessionCtl.add(`${r.metadata.namespace}/${r.spec.session}`);
      }
      if (r.status?.phase) runPhaseMetrics();
    },
    { ...tenancy, indexes: { session: (r) => `${r.metadata.namespace}/${r.spec.session}` } },
  );
  const clusterManagers = watch<ClusterManager>(KINDS.clusterManager, (_t, cm) => {
    cmCtl.add(cm.metadata.name!);
    // A cluster manager that is (again) alive may make room for QUEUED runs.
    if (cm.status?.alive) for (const q of runs.list()) if (q.status?.phase === 'QUEUED') runCtl.add(keyOf(q));
  });
  const argo = watch<ArgoWorkflow>(
    KINDS.argoWorkflow,
    (t, wf) => {
      const run = runKeyOf(wf);
      if (run) runCtl.add(run);
      else if (t === 'add' && wf.metadata.labels?.[LABELS.cronWorkflow]) adoptCtl.add(keyOf(wf));
    },
    { indexes: { run: runKeyOf } },
  );
  const cronWorkflows = watch<CronWorkflow>(KINDS.cronWorkflow, () => undefined);
  // A group quota or a user quota that changed may make room for QUEUED runs of that namespace.
  const wakeQueued = (namespace: string | undefined) => {
    for (const q of runs.list(namespace)) if (q.status?.phase === 'QUEUED') runCtl.add(keyOf(q));
  };
  const namespaces = watch<V1Namespace>(
    CORE_KINDS.namespace,
    (t, n) => {
      if (t !== 'delete') wakeQueued(n.metadata?.name);
      else forgetExecutor(ctx, n.metadata!.name!);
    },
    { labelIndexes: { organization: LABELS.organization } },
  );
  const quotas = watch<V1ResourceQuota>(CORE_KINDS.resourceQuota, (t, rq) => {
    if (t !== 'delete') wakeQueued(rq.metadata?.namespace);
  });
  const runPhaseMetrics = () => {
    const counts: Record<string, number> = {};
    for (const r of runs.list())
      counts[r.status?.phase ?? 'WAITING'] = (counts[r.status?.phase ?? 'WAITING'] ?? 0) + 1;
    metrics.runPhases.reset();
    for (const [phase, n] of Object.entries(counts)) metrics.runPhases.set({ phase }, n);
  };

  ctx = {
    kube,
    log,
    metrics,
    options: {
      platformClusterName: options.platformClusterName ?? DEFAULT_PLATFORM_CLUSTER,
      ...(options.platformResources ? { platformResources: options.platformResources } : {}),
      heartbeatMs: options.heartbeatMs ?? 30_000,
      queuedRetryMs: options.queuedRetryMs ?? 10_000,
      compiler: withExecutor(options.compiler, options.executor),
      ...(options.executor ? { executor: options.executor } : {}),
    },
    caches: {
      workflows,
      sessions,
      runs,
      sandboxes,
      clusterManagers,
      argo,
      cronWorkflows,
      namespaces,
      quotas,
    },
    enqueue: {
      workflow: workflowCtl.add,
      session: sessionCtl.add,
      run: runCtl.add,
      clusterManager: cmCtl.add,
    },
    active: new Map(),
    superseded: new Map(),
    executorNamespaces: new Set(),
    lastCluster: new Map(),
    admission: mutex(),
  };

  const shutdown = async () => {
    pollers?.stop();
    await Promise.all(informers.map((i) => i.stop().catch(() => undefined)));
    await Promise.all(controllers.map((c) => c.queue.shutdown()));
  };
  try {
    await ensurePlatformCluster(ctx);
    await Promise.all(informers.map((i) => i.synced));
  } catch (e) {
    await shutdown();
    throw new Error('starting the controllers failed', { cause: e });
  }
  rebuildActive(ctx);
  cmCtl.add(ctx.options.platformClusterName);
  for (const c of controllers) c.start();
  pollers = startEventPollers(ctx, options.eventPeriodMs ? { periodMs: options.eventPeriodMs } : {});
  for (const s of sessions.list()) pollers.update('add', s);
  const resync = setInterval(() => {
    for (const w of workflows.list()) workflowCtl.add(keyOf(w));
    for (const s of sessions.list()) sessionCtl.add(keyOf(s));
    for (const r of runs.list()) if (!FINAL_RUN_PHASES.has(r.status?.phase ?? '')) runCtl.add(keyOf(r));
    for (const c of clusterManagers.list()) cmCtl.add(c.metadata.name!);
  }, options.resyncMs ?? 60_000);
  resync.unref();
  log.info({ controllers: controllers.map((c) => c.name), active: ctx.active.size }, 'controllers started');

  return {
    async stop() {
      clearInterval(resync);
      await shutdown();
      log.info('controllers stopped');
    },
  };
}

/**
 * The resources held by runs admitted before this start: those whose status names their Argo
 * workflow, and those whose workflow exists although the status write that would name it was lost.
 */
export function rebuildActive(ctx: Context) {
  ctx.active.clear();
  for (const r of ctx.caches.runs.list()) {
    const st = r.status ?? {};
    if (FINAL_RUN_PHASES.has(st.phase ?? '')) continue;
    const key = keyOf(r);
    const owned = ctx.caches.argo.byIndex('run', key);
    const wf = st.argoWorkflow
      ? ctx.caches.argo.get(st.argoWorkflow, r.metadata.namespace)
      : owned.find((w) => !FINAL_WORKFLOW_PHASES.has(w.status?.phase ?? ''));
    if (!st.argoWorkflow && !wf) continue;
    ctx.active.set(key, {
      namespace: r.metadata.namespace!,
      owner: r.spec.owner ?? ctx.caches.sessions.get(r.spec.session, r.metadata.namespace)?.spec.owner ?? '',
      demand: wf ? demandOf(wf) : { cpu: 0, memory: 0, disk: 0 },
      cluster: st.clusterManager ?? wf?.metadata.labels?.[LABELS.clusterManager] ?? '',
    });
  }
}
