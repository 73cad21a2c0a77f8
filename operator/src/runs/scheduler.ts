// Admission of a Run (ARCHITECTURE.md "Execution", spec 3 §4): quota first (group quota = the
// ResourceQuota of the group namespace, per-user quota from the namespace annotation
// sandflow.io/user-quotas), then the cluster manager chosen by the organization's algorithm over the
// alive, enabled cluster managers with enough free resources:
//   round_robin — the next eligible cluster after the one used last, in name order;
//   fill_all    — spread: the cluster with the most free resources;
//   fill_one    — pack: the first cluster, in name order, where the run fits.

export interface Resources {
  /** Millicores. */
  cpu: number;
  /** MB. */
  memory: number;
  /** MB. */
  disk: number;
}

export type Algorithm = 'round_robin' | 'fill_all' | 'fill_one';
export const ALGORITHMS: readonly Algorithm[] = ['round_robin', 'fill_all', 'fill_one'];

export const ZERO: Resources = { cpu: 0, memory: 0, disk: 0 };
export const add = (a: Resources, b: Resources): Resources => ({
  cpu: a.cpu + b.cpu,
  memory: a.memory + b.memory,
  disk: a.disk + b.disk,
});
export const sub = (a: Resources, b: Resources): Resources => ({
  cpu: a.cpu - b.cpu,
  memory: a.memory - b.memory,
  disk: a.disk - b.disk,
});
export const fits = (need: Resources, free: Resources) =>
  need.cpu <= free.cpu && need.memory <= free.memory && need.disk <= free.disk;

/**
 * Whether `demand` fits in `quota` given `used`. A quota value of 0 (or absent) puts no limit on
 * that resource: new organizations start with quota 0 (spec 3 §9) and still run.
 */
export function quotaAllows(
  quota: Partial<Resources> | undefined,
  used: Resources,
  demand: Resources,
): string | undefined {
  if (!quota) return undefined;
  for (const k of ['cpu', 'memory', 'disk'] as const) {
    const limit = quota[k] ?? 0;
    if (limit > 0 && used[k] + demand[k] > limit) {
      return `${k} quota exhausted: ${used[k]} in use + ${demand[k]} requested > ${limit}`;
    }
  }
  return undefined;
}

export interface ClusterCandidate {
  name: string;
  free: Resources;
}

/** Chooses a cluster manager for a run; undefined when none has room. `last` is the previous round_robin pick. */
export function chooseCluster(
  algorithm: Algorithm,
  candidates: ClusterCandidate[],
  demand: Resources,
  last?: string,
): ClusterCandidate | undefined {
  const sorted = [...candidates].sort((a, b) => a.name.localeCompare(b.name));
  const eligible = sorted.filter((c) => fits(demand, c.free));
  if (eligible.length === 0) return undefined;
  switch (algorithm) {
    case 'fill_one':
      return eligible[0];
    case 'fill_all': {
      const score = (c: ClusterCandidate) => [c.free.cpu, c.free.memory, c.free.disk];
      return eligible.reduce((best, c) => {
        const [a, b] = [score(c), score(best)];
        for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! > b[i]! ? c : best;
        return best;
      });
    }
    case 'round_robin':
    default: {
      if (last === undefined) return eligible[0];
      return eligible.find((c) => c.name.localeCompare(last) > 0) ?? eligible[0];
    }
  }
}

/** The platform-owned ClusterManager's name unless the launcher gives another. */
export const DEFAULT_PLATFORM_CLUSTER = 'platform';

// The connection rule lives in @sandflow/kube (the API answers the same states).
export { connectionOf, lostAfterMs } from '@sandflow/kube';

/**
 * Spec 3 §4: a retry or a restart stays on the run's cluster manager while that one is alive; one
 * closed (its agent lost) or gone sends the run back to the organization's algorithm.
 */
export function staysOn(cm: { status?: { alive?: boolean } } | undefined): boolean {
  return cm?.status?.alive === true;
}
