import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import type { ClusterManager, Run } from '@sandflow/crds';
import { KINDS } from '@sandflow/kube';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Resources } from '../resources/index.js';
import { allocationForRun } from './run-records.js';

const MINUTE_MS = 60_000;
const BUSY = new Set(['INIT', 'RUNNING']);

type Amounts = { cpu: number; memory: number; disk: number };

export interface ClusterSample {
  cluster: string;
  minute: string;
  name: string;
  is_public: boolean;
  organizations: string[];
  capacity_cpu: number;
  capacity_memory: number;
  capacity_disk: number;
  used_cpu: number;
  used_memory: number;
  used_disk: number;
}

/** The minute a time falls in, as an ISO string (the sample's key with the cluster). */
export const minuteOf = (at: number) => new Date(Math.floor(at / MINUTE_MS) * MINUTE_MS).toISOString();

/**
 * One sample per cluster manager: its capacity, and what is allocated on it — the agent's own
 * figure (capacity − status.free) when it reports one, else the steps running there now.
 */
export function samplesOf(
  clusters: Pick<ClusterManager, 'metadata' | 'spec' | 'status'>[],
  runningOn: Map<string, Amounts>,
  at: number,
): ClusterSample[] {
  const minute = minuteOf(at);
  return clusters.map((c) => {
    const name = c.metadata.name!;
    const capacity = {
      cpu: Math.round(c.spec.resources?.cpu ?? 0),
      memory: Math.round(c.spec.resources?.memory ?? 0),
      disk: Math.round(c.spec.resources?.disk ?? 0),
    };
    const free = c.status?.free;
    const counted = runningOn.get(name) ?? { cpu: 0, memory: 0, disk: 0 };
    const used = (k: keyof Amounts) =>
      Math.max(0, Math.round(free?.[k] !== undefined ? capacity[k] - free[k]! : counted[k]));
    return {
      cluster: name,
      minute,
      name: c.spec.title || c.spec.label || name,
      is_public: !!c.spec.public || !!c.spec.platformOwned,
      organizations: c.spec.organizations ?? [],
      capacity_cpu: capacity.cpu,
      capacity_memory: capacity.memory,
      capacity_disk: capacity.disk,
      used_cpu: used('cpu'),
      used_memory: used('memory'),
      used_disk: used('disk'),
    };
  });
}

/** Writes the samples; a replica that samples the same minute again writes nothing. */
export async function saveSamples(db: Knex, samples: ClusterSample[]): Promise<void> {
  if (samples.length === 0) return;
  await db('cluster_usage').insert(samples).onConflict(['cluster', 'minute']).ignore();
}

/** What the busy steps of the cached runs hold, per cluster manager. */
async function runningAllocations(resources: Resources): Promise<Map<string, Amounts>> {
  const out = new Map<string, Amounts>();
  for (const run of resources.runs.list() as Run[]) {
    const cluster = run.status?.clusterManager;
    if (!cluster || !BUSY.has(run.status?.phase ?? '')) continue;
    const organizationId = await resources.organizationOf(run);
    if (!organizationId) continue;
    const allocationOf = await allocationForRun(resources, run, organizationId);
    const sum = out.get(cluster) ?? { cpu: 0, memory: 0, disk: 0 };
    for (const step of run.status?.sandboxStatuses ?? []) {
      if (!BUSY.has(step.status ?? '')) continue;
      const a = allocationOf(step);
      sum.cpu += a.cpu;
      sum.memory += a.memory;
      sum.disk += a.disk;
    }
    out.set(cluster, sum);
  }
  return out;
}

/**
 * Samples cluster usage at the start of every minute in every replica; the (cluster, minute)
 * key keeps one row. Returns the stop function.
 */
export function sampleClusterUsage(deps: {
  db: Knex;
  kubeConfig: KubeConfig;
  resources: Resources;
  logger: Logger;
}): () => void {
  const custom = deps.kubeConfig.makeApiClient(CustomObjectsApi);
  const { group, version, plural } = KINDS.clusterManager;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  async function sample() {
    const list = (await custom.listClusterCustomObject({ group, version, plural })) as {
      items?: ClusterManager[];
    };
    const running = await runningAllocations(deps.resources);
    await saveSamples(deps.db, samplesOf(list.items ?? [], running, Date.now()));
  }

  function schedule() {
    if (stopped) return;
    const wait = MINUTE_MS - (Date.now() % MINUTE_MS) + 1_000;
    timer = setTimeout(() => {
      sample()
        .catch((error: unknown) => deps.logger.warn({ err: error }, 'sampling cluster usage failed'))
        .finally(schedule);
    }, wait);
    timer.unref();
  }
  void deps.resources.synced.then(schedule);
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
