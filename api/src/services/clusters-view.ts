import type { ClusterManager } from '@sandflow/crds';
import { connectionOf } from '@sandflow/kube';

export type { Connection } from '@sandflow/kube';

/**
 * The connection dot, computed from lastSeen at read time (status.connection lags until a
 * reconcile), by the operator's rule: connected within 2 minutes, connecting up to 3, closed after.
 */
export const connectionStateOf = (lastSeen: string | undefined, now: number) =>
  connectionOf(lastSeen, now).connection;

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
  const connection = connectionStateOf(lastSeen, now);
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
