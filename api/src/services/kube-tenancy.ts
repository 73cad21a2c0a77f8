import { CoreV1Api, type KubeConfig, type V1Namespace, type V1ResourceQuota } from '@kubernetes/client-node';
import { ANNOTATIONS, LABELS, QUOTA_NAME, isAlreadyExists, isNotFound } from '@sandflow/kube';

export const ORGANIZATION_LABEL = LABELS.organization;
export const GROUP_LABEL = LABELS.group;

/** Quantities in the spec's units: cpu in millicores, memory and disk in MB. */
export interface Resources {
  cpu: number;
  memory: number;
  disk: number;
}

export interface TenancyOrganization {
  id: string;
  slug: string;
  /**
   * What the runtime and admission read from the organization namespace's annotations; absent:
   * the annotations are left as they are (a sync of the labels only).
   */
  settings?: OrganizationSettings;
}

/** The organization settings other processes act on, as annotations of its namespace. */
export interface OrganizationSettings {
  /**
   * What the automatic provisioner may lend the organization's groups above their quotas
   * (admission, operator/src/controllers/run/admission.ts); null: the provisioner is off.
   */
  provisioner: Resources | null;
  /** The base path and the mount point rows a step may bind (the runner checks at step start). */
  mounts: { base: string; points: string[] };
  /** How the operator's admission picks a cluster manager: round_robin, fill_all or fill_one. */
  algorithm: string;
}

/** On an organization namespace: JSON { cpu, memory, disk }, absent when the provisioner is off. */
export const PROVISIONER_ANNOTATION = ANNOTATIONS.provisioner;
/** On an organization namespace: JSON { base, points }. */
export const MOUNT_POINTS_ANNOTATION = ANNOTATIONS.mountPoints;

/** The annotations of an organization namespace for its settings (null: remove the annotation). */
export function settingsAnnotations(settings: OrganizationSettings): Record<string, string | null> {
  return {
    [PROVISIONER_ANNOTATION]: settings.provisioner ? JSON.stringify(settings.provisioner) : null,
    [MOUNT_POINTS_ANNOTATION]: JSON.stringify(settings.mounts),
    [ANNOTATIONS.schedulerAlgorithm]: settings.algorithm,
  };
}
export interface TenancyGroup {
  id: string;
  slug: string;
  quota: Resources;
}

/** Mirrors organizations and groups into namespaces and ResourceQuotas. Every call is idempotent. */
export interface KubeTenancy {
  syncOrganization(organization: TenancyOrganization): Promise<void>;
  syncGroup(organization: TenancyOrganization, group: TenancyGroup): Promise<void>;
  deleteGroup(organization: TenancyOrganization, group: Pick<TenancyGroup, 'slug'>): Promise<void>;
  /** Deletes the organization namespace and every group namespace labelled with it. */
  deleteOrganization(organization: TenancyOrganization): Promise<void>;
}

export const organizationNamespace = (org: Pick<TenancyOrganization, 'slug'>) => `sf-${org.slug}`;
export const groupNamespace = (org: Pick<TenancyOrganization, 'slug'>, group: Pick<TenancyGroup, 'slug'>) =>
  `sf-${org.slug}-${group.slug}`;

export function resourceQuotaHard(quota: Resources): Record<string, string> {
  return {
    'requests.cpu': `${Math.round(quota.cpu)}m`,
    'requests.memory': `${Math.round(quota.memory)}Mi`,
    'requests.ephemeral-storage': `${Math.round(quota.disk)}Mi`,
  };
}

export function createKubeTenancy(kubeConfig: KubeConfig): KubeTenancy {
  const core = kubeConfig.makeApiClient(CoreV1Api);

  async function ensureNamespace(
    name: string,
    labels: Record<string, string>,
    annotations: Record<string, string | null> = {},
  ): Promise<void> {
    const merge = (current: Record<string, string> = {}) => {
      const out = { ...current };
      for (const [key, value] of Object.entries(annotations)) {
        if (value === null) delete out[key];
        else out[key] = value;
      }
      return out;
    };
    const body: V1Namespace = { metadata: { name, labels, annotations: merge() } };
    try {
      await core.createNamespace({ body });
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
      const existing = await core.readNamespace({ name });
      await core.replaceNamespace({
        name,
        body: {
          ...existing,
          metadata: {
            ...existing.metadata,
            name,
            labels: { ...existing.metadata?.labels, ...labels },
            annotations: merge(existing.metadata?.annotations),
          },
        },
      });
    }
  }

  async function deleteNamespace(name: string): Promise<void> {
    try {
      await core.deleteNamespace({ name });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }

  return {
    async syncOrganization(org) {
      await ensureNamespace(
        organizationNamespace(org),
        { [ORGANIZATION_LABEL]: org.id },
        org.settings ? settingsAnnotations(org.settings) : {},
      );
    },

    async syncGroup(org, group) {
      const namespace = groupNamespace(org, group);
      const labels = { [ORGANIZATION_LABEL]: org.id, [GROUP_LABEL]: group.id };
      await ensureNamespace(namespace, labels);
      const body: V1ResourceQuota = {
        metadata: { name: QUOTA_NAME, namespace, labels },
        spec: { hard: resourceQuotaHard(group.quota) },
      };
      try {
        await core.createNamespacedResourceQuota({ namespace, body });
      } catch (error) {
        if (!isAlreadyExists(error)) throw error;
        const existing = await core.readNamespacedResourceQuota({ name: QUOTA_NAME, namespace });
        await core.replaceNamespacedResourceQuota({
          name: QUOTA_NAME,
          namespace,
          body: {
            ...body,
            metadata: { ...body.metadata, resourceVersion: existing.metadata?.resourceVersion },
          },
        });
      }
    },

    async deleteGroup(org, group) {
      await deleteNamespace(groupNamespace(org, group));
    },

    async deleteOrganization(org) {
      const labelled = await core.listNamespace({ labelSelector: `${ORGANIZATION_LABEL}=${org.id}` });
      const names = new Set(labelled.items.map((ns) => ns.metadata?.name).filter((n): n is string => !!n));
      names.add(organizationNamespace(org));
      for (const name of names) await deleteNamespace(name);
    },
  };
}

/** For an API started without a Kubernetes API (unit tests): records nothing, changes nothing. */
export const noKubeTenancy: KubeTenancy = {
  async syncOrganization() {},
  async syncGroup() {},
  async deleteGroup() {},
  async deleteOrganization() {},
};
