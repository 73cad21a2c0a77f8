// Fixture factories for the cluster-manager, registry and mount-point sections' tests.
import type { ClusterItem, CurrentOrganization } from './queries';

export function clusterItem(over: Partial<ClusterItem> = {}): ClusterItem {
  const id = over.id ?? 'cm-1';
  return {
    id,
    uuid: id,
    name: id,
    title: '',
    label: '',
    version: '1.0.0',
    address: id,
    cpu: 4000,
    memory: 8192,
    disk: 20480,
    organizations: ['org-1'],
    public: false,
    active: true,
    isIlluminia: false,
    creationDate: '2026-11-01T10:00:00.000Z',
    lastUpdate: '2026-11-23T10:00:00.000Z',
    isAlive: true,
    connection: 'connected',
    disabled: false,
    ...over,
  };
}

export function currentOrganization(over: Partial<CurrentOrganization> = {}): CurrentOrganization {
  return {
    id: 'org-1',
    name: 'Analytical Engines',
    slug: 'analytical-engines',
    creation_date: '2026-01-01T00:00:00.000Z',
    quota: { cpu: 8000, memory: 16384, disk: 102400 },
    admins: [],
    members: [],
    automatic_resources: { cpu: 0, memory: 0, disk: 0 },
    use_automatic_resources: false,
    enable_provisioner: false,
    lock_provisioner: false,
    use_free: false,
    registry: { use_custom: false, password: '' },
    mount_points: [],
    safe_mount: true,
    base_path: '/mnt',
    algorithm: 'round_robin',
    disabled_clusters: [],
    role: 'organization_admin',
    ...over,
  };
}
