// @sandflow/operator: reconciles Sandflow's CRDs on any Kubernetes API (kube-lite or a cluster).
// startOperator() runs for election through a Lease; while leading it runs the Workflow, Session,
// Run and ClusterManager controllers on client-node informers, and (optionally) serves Prometheus
// metrics on /metrics.
import http from 'node:http';
import os from 'node:os';
import type { KubeConfig } from '@kubernetes/client-node';
import { Kube } from '@sandflow/kube';
import pino, { type Logger } from 'pino';
import type { CompilerOptions } from './compiler/index.js';
import { startControllers } from './manager.js';
import { LeaderElector } from './runtime/leader.js';
import { Metrics } from './runtime/metrics.js';
import type { Period } from './controllers/session-events.js';
import type { ExecutorOptions } from './controllers/executor.js';

export * from './compiler/index.js';
export {
  chooseCluster,
  quotaAllows,
  connectionOf,
  lostAfterMs,
  DEFAULT_PLATFORM_CLUSTER,
  type Algorithm,
  type Resources,
} from './runs/scheduler.js';
export { billingAmount, machineFor, PRICE_TABLE } from './runs/billing.js';
export { mirror, productOf } from './runs/mirror.js';
export { resetForRetry } from './runs/argo.js';
export { ACTION_RULES } from './controllers/run/index.js';
export { matches as eventMatches, type Period } from './controllers/session-events.js';
export { LeaderElector, type LeaderOptions } from './runtime/leader.js';
export { EXECUTOR_SERVICE_ACCOUNT, type ExecutorOptions } from './controllers/executor.js';

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
  /**
   * Argo's pods run as a ServiceAccount the operator makes in each namespace and binds to this
   * ClusterRole (cluster mode: the chart's executor role); absent: as the namespace's default one.
   */
  executor?: ExecutorOptions;
  /** Serve /metrics on 127.0.0.1:<port> (0 = any free port); omitted = no server. */
  metricsPort?: number;
  /** Length of the event plans' period units (tests shorten the minute); omitted: the calendar's. */
  eventPeriodMs?: Partial<Record<Period, number>>;
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
