// What the controllers share: the API client, informer caches (synced before any reconcile), queues,
// logger, metrics, options.
import type { V1Namespace, V1ResourceQuota } from '@kubernetes/client-node';
import type { ClusterManager, Run, Sandbox, Session, Workflow } from '@sandflow/crds';
import type { Logger } from 'pino';
import type { CompilerOptions } from './compiler/index.js';
import type { ExecutorOptions } from './controllers/executor.js';
import type { ArgoWorkflow, Cache, CronWorkflow, Kube } from '@sandflow/kube';
import type { Resources } from './runs/scheduler.js';
import type { Metrics } from './runtime/metrics.js';

export interface Context {
  kube: Kube;
  log: Logger;
  metrics: Metrics;
  options: {
    platformClusterName: string;
    /** Capacity announced for the platform cluster manager; absent: this machine's. */
    platformResources?: Resources;
    heartbeatMs: number;
    queuedRetryMs: number;
    compiler: CompilerOptions;
    /** The ServiceAccount Argo's pods run as, bound to this ClusterRole; absent: the namespace's default. */
    executor?: ExecutorOptions;
  };
  caches: {
    workflows: Cache<Workflow>;
    sessions: Cache<Session>;
    runs: Cache<Run>;
    sandboxes: Cache<Sandbox>;
    clusterManagers: Cache<ClusterManager>;
    argo: Cache<ArgoWorkflow>;
    cronWorkflows: Cache<CronWorkflow>;
    /** Tenancy as the API wrote it: user quotas and the scheduler algorithm are namespace annotations. */
    namespaces: Cache<V1Namespace>;
    /** The group quotas (the ResourceQuota QUOTA_NAME of each group namespace). */
    quotas: Cache<V1ResourceQuota>;
  };
  enqueue: {
    workflow(key: string): void;
    session(key: string): void;
    run(key: string): void;
    clusterManager(key: string): void;
  };
  /** Runs holding resources (admitted, not finished): key → demand and cluster. */
  active: Map<string, { namespace: string; owner: string; demand: Resources; cluster: string }>;
  /** Run key → the resourceVersion our last status write replaced (the cache is stale while it shows it). */
  superseded: Map<string, string>;
  /** Namespaces where the executor's ServiceAccount and RoleBinding were ensured this term. */
  executorNamespaces: Set<string>;
  /** round_robin memory: organization → last cluster chosen. */
  lastCluster: Map<string, string>;
  /** Serializes admissions so two runs never take the same room. */
  admission: { lock<T>(fn: () => Promise<T>): Promise<T> };
}

export function mutex() {
  let tail: Promise<unknown> = Promise.resolve();
  return {
    lock<T>(fn: () => Promise<T>): Promise<T> {
      const next = tail.then(fn, fn);
      tail = next.catch(() => undefined);
      return next;
    },
  };
}
