// ClusterManager: the platform-owned one (the cluster the operator runs in) is created at start and
// recreated if deleted; the operator heartbeats it (status.lastSeen); for every cluster manager,
// alive / connection follow from lastSeen with spec 3 §4's 2 and 3 minute thresholds.
import os from 'node:os';
import type { ClusterManager } from '@sandflow/crds';
import type { Context } from '../context.js';
import { connectionOf } from '../runs/scheduler.js';
import { KINDS, LABELS, isAlreadyExists, sameJson } from '@sandflow/kube';
import type { ReconcileResult } from './base.js';

/**
 * Creates the platform cluster manager when it is missing. Resources given explicitly
 * (options.platformResources: the embedded launcher measures the machine and its data
 * disk) are also written over those of an existing one, so a restart announces today's.
 */
export async function ensurePlatformCluster(ctx: Context) {
  const name = ctx.options.platformClusterName;
  const given = ctx.options.platformResources;
  const existing = await ctx.kube.get<ClusterManager>(KINDS.clusterManager, undefined, name);
  if (existing) {
    if (!given || sameJson(existing.spec.resources, given)) return existing;
    ctx.log.info({ clusterManager: name, resources: given }, 'platform cluster manager resources updated');
    return ctx.kube.patch<ClusterManager>(KINDS.clusterManager, undefined, name, {
      spec: { resources: given },
    });
  }
  const body: ClusterManager = {
    apiVersion: 'sandflow.io/v1alpha1',
    kind: 'ClusterManager',
    metadata: { name, labels: { [LABELS.platformOwned]: 'true' } },
    spec: {
      title: 'Platform',
      label: os.hostname(),
      address: 'in-cluster',
      version: '0.1.0',
      public: true,
      active: true,
      platformOwned: true,
      resources: given ?? {
        cpu: os.cpus().length * 1000,
        memory: Math.floor(os.totalmem() / 1048576),
        disk: 100 * 1024,
      },
    },
  };
  try {
    const created = await ctx.kube.create<ClusterManager>(KINDS.clusterManager, undefined, body);
    ctx.log.info({ clusterManager: name }, 'platform cluster manager created');
    return created;
  } catch (e) {
    if (!isAlreadyExists(e)) throw new Error('creating the platform cluster manager failed', { cause: e });
    return ctx.kube.get<ClusterManager>(KINDS.clusterManager, undefined, name);
  }
}

export async function reconcileClusterManager(ctx: Context, key: string): Promise<ReconcileResult | void> {
  const now = new Date();
  const platform = key === ctx.options.platformClusterName;
  let cm = ctx.caches.clusterManagers.get(key);
  if (!cm) {
    if (!platform) return;
    cm = await ensurePlatformCluster(ctx); // cannot be deleted: it comes back
    if (!cm) return;
  }
  const status = cm.status ?? {};
  // The platform beats for itself. Its status write comes back through the watch and enqueues it
  // again, so a beat is written only when one is due; writing on every reconcile made that a
  // loop of status patches that never idled.
  const beatDue =
    platform &&
    !(now.getTime() - Date.parse(status.lastSeen ?? '') < Math.min(ctx.options.heartbeatMs / 2, 60_000));
  const lastSeen = beatDue ? now.toISOString() : status.lastSeen;
  const c = connectionOf(lastSeen, now);
  const next = {
    ...status,
    ...(lastSeen ? { lastSeen } : {}),
    alive: c.alive,
    connection: c.connection,
    addedTime: status.addedTime ?? cm.metadata.creationTimestamp ?? now.toISOString(),
    observedGeneration: cm.metadata.generation,
  };
  if (!sameJson(status, next)) await ctx.kube.patchStatus(KINDS.clusterManager, undefined, key, next);
  if (platform) return { requeueAfterMs: ctx.options.heartbeatMs };
  return c.changesAt ? { requeueAfterMs: Math.max(1000, c.changesAt - now.getTime()) } : undefined;
}
