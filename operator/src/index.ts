// @sandflow/operator: reconciles Sandflow's CRDs on any Kubernetes API (kube-lite or a cluster).
// startOperator() runs for election through a Lease; while leading it runs the Workflow, Session,
// Run and ClusterManager controllers on client-node informers, and (optionally) serves Prometheus
// metrics on /metrics.
import http from 'node:http';
import os from 'node:os';
import type { KubeConfig } from '@kubernetes/client-node';
import {
  LABELS,
  type ClusterManager,
  type Run,
  type Sandbox,
  type Session,
  type Workflow,
} from '@sandflow/crds';
import pino, { type Logger } from 'pino';
import type { CompilerOptions } from './compiler/index.js';
import { mutex, type Context } from './context.js';
import { Controller, keyOf } from './controllers/base.js';
import { ensurePlatformCluster, reconcileClusterManager } from './controllers/clustermanager.js';
import { adoptCronWorkflow, reconcileRun } from './controllers/run.js';
import { reconcileSession } from './controllers/session.js';
import { reconcileWorkflow } from './controllers/workflow.js';
import { CRON_WORKFLOW_LABEL, type ArgoWorkflowObject } from './runs/argo.js';
import { FINAL_RUN_PHASES } from './runs/mirror.js';
import { demandOf } from './controllers/run.js';
import { KINDS, Kube, watchKind, type StartedInformer } from './runtime/kube.js';
import { LeaderElector } from './runtime/leader.js';
import { Metrics } from './runtime/metrics.js';

export * from './compiler/index.js';
export {
  chooseCluster,
  quotaAllows,
  connectionOf,
  type Algorithm,
  type Resources,
} from './runs/scheduler.js';
export { billingAmount, machineFor, PRICE_TABLE } from './runs/billing.js';
export { mirror, productOf } from './runs/mirror.js';
export { resetForRetry } from './runs/argo.js';
export {
  ACTION_RULES,
  ACTIONS_ANNOTATION,
  ALGORITHM_ANNOTATION,
  USER_QUOTAS_ANNOTATION,
} from './controllers/run.js';

export interface OperatorOptions {
  kc: KubeConfig;
  logger?: Logger;
  /** Identity in the Lease (defaults to hostname-pid). */
  identity?: string;
  leaseNamespace?: string;
  leaseName?: string;
  leaseDurationSeconds?: number;
  /** metadata.name of the platform-owned ClusterManager. */
  platformClusterName?: string;
  /** Capacity announced for the platform cluster manager (defaults to this machine). */
  platformResources?: { cpu: number; memory: number; disk: number };
  heartbeatMs?: number;
  /** How often a QUEUED run looks for room again (it is also woken when a run ends). */
  queuedRetryMs?: number;
  /** Re-enqueue everything this often. */
  resyncMs?: number;
  workers?: number;
  compiler?: CompilerOptions;
  /** Serve /metrics on 127.0.0.1:<port> (0 = any free port); omitted = no server. */
  metricsPort?: number;
}

export interface Operator {
  metrics: Metrics;
  /** URL of /metrics when served. */
  metricsUrl?: string;
  isLeader(): boolean;
  /** release=false leaves the Lease held, as a crashed process would. */
  stop(opts?: { release?: boolean }): Promise<void>;
}

export async function startOperator(options: OperatorOptions): Promise<Operator> {
  const log = (options.logger ?? pino({ level: 'info' })).child({ component: 'operator' });
  const kube = new Kube(options.kc);
  const metrics = new Metrics();
  const identity =
    options.identity ?? `${os.hostname()}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  let running: { stop(): Promise<void> } | undefined;

  const elector = new LeaderElector(
    kube,
    {
      namespace: options.leaseNamespace ?? 'default',
      name: options.leaseName ?? 'sandflow-operator',
      identity,
      leaseDurationSeconds: options.leaseDurationSeconds ?? 15,
    },
    log,
    {
      onStarted: async () => {
        metrics.leader.set({}, 1);
        running = await startControllers(kube, log, metrics, options);
      },
      onStopped: async () => {
        metrics.leader.set({}, 0);
        const r = running;
        running = undefined;
        await r?.stop();
      },
    },
  );
  elector.start();

  let server: http.Server | undefined;
  let metricsUrl: string | undefined;
  if (options.metricsPort !== undefined) {
    server = http.createServer((req, res) => {
      if (req.url === '/metrics') {
        metrics.render().then(
          (text) => res.writeHead(200, { 'Content-Type': metrics.contentType }).end(text),
          (e: unknown) => {
            log.warn({ err: e }, 'metrics could not be collected');
            res.writeHead(500).end();
          },
        );
      } else if (req.url === '/healthz') res.writeHead(200).end('ok');
      else res.writeHead(404).end();
    });
    await new Promise<void>((r) => server!.listen(options.metricsPort, '127.0.0.1', r));
    metricsUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/metrics`;
  }

  return {
    metrics,
    ...(metricsUrl ? { metricsUrl } : {}),
    isLeader: () => elector.isLeader,
    async stop(opts = {}) {
      await elector.stop(opts.release !== false);
      if (server) await new Promise<void>((r) => server!.close(() => r()));
    },
  };
}

async function startControllers(kube: Kube, log: Logger, metrics: Metrics, options: OperatorOptions) {
  const workers = options.workers ?? 4;
  const informers: StartedInformer<unknown>[] = [];
  const controllers: Controller[] = [];
  // eslint-disable-next-line prefer-const
  let ctx: Context;
  const ctl = (name: string, fn: (ctx: Context, key: string) => Promise<unknown>, n = workers) => {
    const c = new Controller(name, log, metrics, (key) => fn(ctx, key) as never, n);
    controllers.push(c);
    return c;
  };
  const workflowCtl = ctl('workflow', reconcileWorkflow);
  const sessionCtl = ctl('session', reconcileSession, 2);
  const runCtl = ctl('run', reconcileRun);
  const cmCtl = ctl('clustermanager', reconcileClusterManager, 1);
  const adopt = new Controller(
    'adopt',
    log,
    metrics,
    async (key) => {
      const [ns, name] = key.split('/') as [string, string];
      const wf = await kube.get<ArgoWorkflowObject>(KINDS.argoWorkflow, ns, name);
      if (wf) await adoptCronWorkflow(ctx, wf);
    },
    1,
  );
  controllers.push(adopt);

  const watch = <T extends { metadata?: object }>(
    kind: (typeof KINDS)[keyof typeof KINDS],
    on: (type: string, o: T) => void,
  ) => {
    const inf = watchKind<T>(kube, kind, log, on);
    informers.push(inf as StartedInformer<unknown>);
    return inf;
  };
  const sandboxes = watch<Sandbox>(KINDS.sandbox, (_t, sb) => {
    // A sandbox change can make workflows valid or invalid.
    for (const w of workflows.cache.list(sb.metadata.namespace)) workflowCtl.add(keyOf(w));
  });
  const workflows = watch<Workflow>(KINDS.workflow, (t, w) => {
    if (t !== 'delete') workflowCtl.add(keyOf(w));
    for (const s of sessions.cache.list()) if (s.spec.workflow === w.metadata.name) sessionCtl.add(keyOf(s));
  });
  const sessions = watch<Session>(KINDS.session, (t, s) => {
    if (t !== 'delete') sessionCtl.add(keyOf(s));
  });
  const runs = watch<Run>(KINDS.run, (t, r) => {
    if (t !== 'delete') runCtl.add(keyOf(r));
    else {
      ctx.active.delete(keyOf(r));
      for (const q of runs.cache.list(r.metadata.namespace))
        if (q.status?.phase === 'QUEUED') runCtl.add(keyOf(q));
      sessionCtl.add(`${r.metadata.namespace}/${r.spec.session}`);
    }
    if (r.status?.phase) metricsRunPhases();
  });
  const clusterManagers = watch<ClusterManager>(KINDS.clusterManager, (_t, cm) => {
    cmCtl.add(cm.metadata.name!);
    // A cluster manager that is (again) alive may make room for QUEUED runs.
    if (cm.status?.alive)
      for (const q of runs.cache.list()) if (q.status?.phase === 'QUEUED') runCtl.add(keyOf(q));
  });
  const argo = watch<ArgoWorkflowObject>(KINDS.argoWorkflow, (t, wf) => {
    const labels = wf.metadata.labels ?? {};
    const run = labels[LABELS.run] ?? wf.metadata.ownerReferences?.find((o) => o.kind === 'Run')?.name;
    if (run) runCtl.add(`${wf.metadata.namespace}/${run}`);
    else if (t === 'add' && labels[CRON_WORKFLOW_LABEL]) adopt.add(keyOf(wf));
  });
  const metricsRunPhases = () => {
    const counts: Record<string, number> = {};
    for (const r of runs.cache.list())
      counts[r.status?.phase ?? 'WAITING'] = (counts[r.status?.phase ?? 'WAITING'] ?? 0) + 1;
    metrics.runPhases.reset();
    for (const [phase, n] of Object.entries(counts)) metrics.runPhases.set({ phase }, n);
  };

  ctx = {
    kube,
    log,
    metrics,
    options: {
      platformClusterName: options.platformClusterName ?? 'platform',
      ...(options.platformResources ? { platformResources: options.platformResources } : {}),
      heartbeatMs: options.heartbeatMs ?? 30_000,
      queuedRetryMs: options.queuedRetryMs ?? 10_000,
      compiler: options.compiler ?? {},
    },
    caches: {
      workflows: workflows.cache,
      sessions: sessions.cache,
      runs: runs.cache,
      sandboxes: sandboxes.cache,
      clusterManagers: clusterManagers.cache,
      argo: argo.cache,
    },
    enqueue: {
      workflow: workflowCtl.add,
      session: sessionCtl.add,
      run: runCtl.add,
      clusterManager: cmCtl.add,
    },
    active: new Map(),
    lastCluster: new Map(),
    admission: mutex(),
  };

  await ensurePlatformCluster(ctx);
  await Promise.all(informers.map((i) => i.ready));
  // Resources held by runs admitted before this start (a restarted operator).
  for (const r of runs.cache.list()) {
    const st = r.status;
    if (!st?.argoWorkflow || FINAL_RUN_PHASES.has(st.phase ?? '')) continue;
    const wf = argo.cache.get(st.argoWorkflow, r.metadata.namespace);
    ctx.active.set(keyOf(r), {
      namespace: r.metadata.namespace!,
      owner: r.spec.owner ?? '',
      demand: wf ? demandOf(wf) : { cpu: 0, memory: 0, disk: 0 },
      cluster: st.clusterManager ?? '',
    });
  }
  cmCtl.add(ctx.options.platformClusterName);
  const resync = setInterval(() => {
    for (const w of workflows.cache.list()) workflowCtl.add(keyOf(w));
    for (const s of sessions.cache.list()) sessionCtl.add(keyOf(s));
    for (const r of runs.cache.list()) if (!FINAL_RUN_PHASES.has(r.status?.phase ?? '')) runCtl.add(keyOf(r));
    for (const c of clusterManagers.cache.list()) cmCtl.add(c.metadata.name!);
  }, options.resyncMs ?? 60_000);
  resync.unref();
  log.info({ controllers: controllers.map((c) => c.name) }, 'controllers started');

  return {
    async stop() {
      clearInterval(resync);
      await Promise.all(informers.map((i) => i.stop().catch(() => undefined)));
      await Promise.all(controllers.map((c) => c.queue.shutdown()));
      log.info('controllers stopped');
    },
  };
}
