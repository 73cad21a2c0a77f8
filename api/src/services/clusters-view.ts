import type { ClusterManager } from '@sandflow/crds';

/** Spec 3 §4 / §9: connected within 2 minutes, connecting up to 3, closed after. */
export const CONNECTED_WITHIN_MS = 120_000;
export const ALIVE_WITHIN_MS = 180_000;

export type Connection = 'connected' | 'connecting' | 'closed';

/** The connection dot, computed from lastSeen at read time (status.connection lags until a reconcile). */
export function connectionOf(lastSeen: string | undefined, now: number): Connection {
  const seen = lastSeen ? Date.parse(lastSeen) : NaN;
  if (!Number.isFinite(seen)) return 'closed';
  const age = now - seen;
  if (age < CONNECTED_WITHIN_MS) return 'connected';
  return age <= ALIVE_WITHIN_MS ? 'connecting' : 'closed';
}

/** Whether an organization may schedule on it at all (before its own disable list). */
export function usableBy(cm: ClusterManager, organizationId: string | null): boolean {
  if (cm.spec.platformOwned || cm.spec.public) return true;
  return !!organizationId && (cm.spec.organizations ?? []).includes(organizationId);
}

/**
 * A cluster manager as the API answers it (spec 3 §3's field names). `disabled`: the caller's
 * current organization took it out of its scheduling.
 */
export function clusterView(cm: ClusterManager, organizationId: string | null, now = Date.now()) {
  const id = cm.metadata.name!;
  const lastSeen = cm.status?.lastSeen;
  const connection = connectionOf(lastSeen, now);
  const resources = cm.spec.resources ?? {};
  return {
    id,
    uuid: id,
    name: cm.spec.title || cm.spec.label || id,
    title: cm.spec.title ?? '',
    label: cm.spec.label ?? '',
    version: cm.spec.version ?? '',
    address: cm.spec.address ?? '',
    cpu: resources.cpu ?? 0,
    memory: resources.memory ?? 0,
    disk: resources.disk ?? 0,
    organizations: cm.spec.organizations ?? [],
    public: !!cm.spec.public,
    active: cm.spec.active !== false,
    isIlluminia: !!cm.spec.platformOwned,
    creationDate: cm.metadata.creationTimestamp
      ? new Date(cm.metadata.creationTimestamp).toISOString()
      : new Date(now).toISOString(),
    lastUpdate: lastSeen ? new Date(lastSeen).toISOString() : null,
    isAlive: connection !== 'closed',
    connection,
    disabled: !!organizationId && (cm.spec.disabledOrganizations ?? []).includes(organizationId),
  };
}

export type ClusterView = ReturnType<typeof clusterView>;
