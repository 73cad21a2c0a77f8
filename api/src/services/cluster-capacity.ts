import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import type { ClusterManager } from '@sandflow/crds';
import { KINDS, connectionOf, isNotFound } from '@sandflow/kube';
import type { Logger } from 'pino';
import { unavailable, unprocessable } from '../errors.js';
import type { Resources } from './kube-tenancy.js';

/**
 * Spec 3 §5 rounds free capacity down to 0.5 (CPU, memory) and 0.1 (disk) in the
 * console's units (cores, GB = 1024 MB); here in the stored units (millicores, MB).
 */
export const QUOTA_STEP: Resources = { cpu: 500, memory: 512, disk: 102.4 };

const KEYS = ['cpu', 'memory', 'disk'] as const;
const ZERO: Resources = { cpu: 0, memory: 0, disk: 0 };

/** What the alive cluster managers offer together. */
export interface AliveCapacity {
  total: Resources;
  /** How many cluster managers were counted. */
  clusters: number;
}

/** Reads the alive clusters' capacity; null: unknown (no Kubernetes API), no cap applies. */
export type ClusterCapacity = () => Promise<AliveCapacity | Resources | null>;

/** Spec 3 §4: a cluster manager is alive when its last update is within 3 minutes. */
export function isAlive(lastSeen: string | undefined, now: number): boolean {
  return connectionOf(lastSeen, now).alive;
}

/** The summed `spec.resources` of the cluster managers whose `status.lastSeen` is recent. */
export function aliveCapacity(
  clusters: Pick<ClusterManager, 'spec' | 'status'>[],
  now: number = Date.now(),
): AliveCapacity {
  const alive = clusters.filter((c) => isAlive(c.status?.lastSeen, now));
  const total = { ...ZERO };
  for (const c of alive) for (const k of KEYS) total[k] += Math.max(0, Number(c.spec.resources?.[k] ?? 0));
  return { total, clusters: alive.length };
}

/** Rounds down to the spec's slider steps (a step's multiple, to 0.1 MB so 3 × 102.4 stays 307.2). */
export function roundDownToSteps(value: Resources): Resources {
  const out = { ...ZERO };
  for (const k of KEYS) {
    const steps = Math.floor(value[k] / QUOTA_STEP[k] + 1e-9);
    out[k] = Math.max(0, Math.round(steps * QUOTA_STEP[k] * 10) / 10);
  }
  return out;
}

/** Spec 3 §5: alive total minus allocated organization quotas, rounded down, never below 0. */
export function freeCapacity(total: Resources, allocated: Resources): Resources {
  const free = { ...ZERO };
  for (const k of KEYS) free[k] = Math.max(0, total[k] - allocated[k]);
  return roundDownToSteps(free);
}

/** Spec 3 §5: editing an organization, the maximum is the free capacity plus its current quota. */
export function editMaximum(free: Resources, current: Resources): Resources {
  const out = { ...ZERO };
  for (const k of KEYS) out[k] = Math.round((free[k] + current[k]) * 10) / 10;
  return out;
}

const trim = (n: number) => String(Math.round(n * 100) / 100);

/** Spec 3 §9's display units: cores; MB below 1024, GB below 1048576, else TB. */
export function describeAmount(key: keyof Resources, value: number): string {
  if (key === 'cpu') return `${trim(value / 1000)} ${value === 1000 ? 'core' : 'cores'}`;
  if (value < 1024) return `${trim(value)} MB`;
  if (value < 1_048_576) return `${trim(value / 1024)} GB`;
  return `${trim(value / 1_048_576)} TB`;
}

/** A 422 naming the first resource of `wanted` above `maximum`, and the maximum. */
export function assertWithinCapacity(wanted: Resources, maximum: Resources, editing: boolean): void {
  for (const k of KEYS) {
    if (wanted[k] <= maximum[k] + 1e-9) continue;
    const amount = describeAmount(k, maximum[k]);
    const verb = k === 'cpu' && maximum[k] === 1000 ? 'is' : 'are';
    throw unprocessable(
      editing
        ? `quota.${k}: at most ${amount} (the free cluster capacity plus its current quota)`
        : `quota.${k}: at most ${amount} ${verb} free`,
      'quota_exceeded',
    );
  }
}

export const normalizeCapacity = (capacity: AliveCapacity | Resources | null): AliveCapacity | null =>
  !capacity ? null : 'total' in capacity ? capacity : { total: capacity, clusters: 0 };

/**
 * The capacity of the alive `ClusterManager`s, listed through the Kubernetes API on every
 * call (organizations are created and resized rarely). A cluster without the CRD has no
 * cluster manager, so no capacity; any other failure is a 503.
 */
export function kubeClusterCapacity(kubeConfig: KubeConfig, logger?: Logger): ClusterCapacity {
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  return async () => {
    let items: ClusterManager[];
    try {
      const { group, version, plural } = KINDS.clusterManager;
      const list = (await custom.listClusterCustomObject({ group, version, plural })) as {
        items?: ClusterManager[];
      };
      items = list.items ?? [];
    } catch (error) {
      if (!isNotFound(error)) {
        logger?.error({ err: error }, 'listing cluster managers failed');
        throw unavailable(
          'kubernetes_unavailable',
          'The cluster managers could not be read from the Kubernetes API, please retry.',
          error,
        );
      }
      items = [];
    }
    return aliveCapacity(items);
  };
}
