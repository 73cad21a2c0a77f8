import { randomBytes } from 'node:crypto';
import type { KubeConfig } from '@kubernetes/client-node';
import type { ClusterManager } from '@sandflow/crds';
import { Kube, KINDS, isConflict } from '@sandflow/kube';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { DomainError, conflict, forbidden, notFound, unavailable, unprocessable } from '../errors.js';
import type { Caller } from './callers.js';
import type { ClusterTokenService } from './cluster-tokens.js';
import { registrySecrets, type StoredRegistry } from './clusters-registry.js';
import { clusterView, usableBy } from './clusters-view.js';
import type { EventService } from './events.js';

interface Deps {
  db: Knex;
  /** The Kubernetes API holding the ClusterManager resources; null: none (every write is a 503). */
  kubeConfig: KubeConfig | null;
  tokens: ClusterTokenService;
  events: EventService;
  logger: Logger;
}

export interface ClusterCreate {
  organizations?: string[] | undefined;
  public?: boolean | undefined;
}

export interface ClusterUpdate {
  organizations?: string[] | undefined;
  public?: boolean | undefined;
}

/**
 * Cluster managers (spec 3 §2.3, §6, §7). The ClusterManager custom resource is the store: what
 * the agent reports (resources, address, lastSeen) and what admins set (title, public,
 * organizations, disabledOrganizations, which the operator's admission reads). Tokens live in
 * Postgres (cluster-tokens.ts).
 */
export function createClusterService({ db, kubeConfig, tokens, events, logger }: Deps) {
  const kube = kubeConfig ? new Kube(kubeConfig) : null;
  const syncRegistrySecret = registrySecrets(kubeConfig);

  function api(): Kube {
    if (kube) return kube;
    throw unavailable(
      'kubernetes_unavailable',
      'Cluster managers need the Kubernetes API, which is not configured.',
    );
  }

  function kubeFailure(error: unknown): never {
    if (error instanceof DomainError) throw error;
    logger.error({ err: error }, 'cluster manager request failed');
    throw unavailable(
      'kubernetes_unavailable',
      'The cluster managers could not be read or written through the Kubernetes API, please retry.',
      error,
    );
  }

  async function all(): Promise<ClusterManager[]> {
    if (!kube) return [];
    try {
      return (await kube.list<ClusterManager>(KINDS.clusterManager)).items;
    } catch (error) {
      return kubeFailure(error);
    }
  }

  /** The cluster manager, or 404 when it is missing or the caller's organization may not see it. */
  async function visible(caller: Caller, id: string): Promise<ClusterManager> {
    let cm: ClusterManager | undefined;
    try {
      cm = await api().get<ClusterManager>(KINDS.clusterManager, undefined, id);
    } catch (error) {
      kubeFailure(error);
    }
    if (!cm || (!caller.isSuperAdmin && !usableBy(cm, caller.currentOrganizationId)))
      throw notFound('Cluster manager');
    return cm;
  }

  /** Read, change, write back conditionally; another writer in between (a heartbeat) means retry. */
  async function update(id: string, change: (cm: ClusterManager) => void): Promise<ClusterManager> {
    for (let attempt = 0; ; attempt++) {
      try {
        const cm = await api().get<ClusterManager>(KINDS.clusterManager, undefined, id);
        if (!cm) throw notFound('Cluster manager');
        change(cm);
        return await api().replace<ClusterManager>(KINDS.clusterManager, undefined, id, cm);
      } catch (error) {
        if (isConflict(error) && attempt < 4) continue;
        kubeFailure(error);
      }
    }
  }

  async function assertOrganizationsExist(ids: string[]) {
    if (ids.length === 0) return;
    const found = new Set<string>(await db('organizations').whereIn('id', ids).pluck('id'));
    const missing = ids.find((id) => !found.has(id));
    if (missing) throw unprocessable(`organizations: no organization ${missing}`);
  }

  async function audit(caller: Caller, action: string, subject: string, data: unknown[] = []) {
    await events.record(caller, {
      kind: 'clusters',
      action,
      subject,
      organizationId: caller.currentOrganizationId,
      data,
    });
  }

  return {
    /**
     * GET /cluster: the super admin sees every cluster manager; anyone else those their current
     * organization may use (public, platform-owned, or assigned to it), disabled ones flagged.
     */
    async list(caller: Caller) {
      const now = Date.now();
      const org = caller.currentOrganizationId;
      return (await all())
        .filter((cm) => caller.isSuperAdmin || usableBy(cm, org))
        .map((cm) => clusterView(cm, org, now));
    },

    /** GET /admin/cluster: every cluster manager. */
    async listAll(caller: Caller) {
      const now = Date.now();
      return (await all()).map((cm) => clusterView(cm, caller.currentOrganizationId, now));
    },

    /**
     * POST /cluster: a new cluster manager waiting for its agent, and the token the agent registers
     * with (shown once). An organization admin adds a private one for their own organization.
     */
    async create(caller: Caller, input: ClusterCreate) {
      const own = caller.currentOrganizationId;
      let organizations = [...new Set(input.organizations ?? [])];
      if (!caller.isSuperAdmin) {
        if (input.public) throw forbidden('public: only the super admin may make a cluster manager public');
        if (!own) throw unprocessable('organizations: choose an organization first');
        if (organizations.some((o) => o !== own))
          throw forbidden(
            'organizations: an organization admin adds cluster managers to their own organization',
          );
        organizations = [own];
      }
      await assertOrganizationsExist(organizations);
      const name = `cm-${randomBytes(5).toString('hex')}`;
      const body: ClusterManager = {
        apiVersion: 'sandflow.io/v1alpha1',
        kind: 'ClusterManager',
        metadata: { name },
        spec: { title: '', organizations, public: !!input.public, active: true, platformOwned: false },
      };
      try {
        await api().create(KINDS.clusterManager, undefined, body);
      } catch (error) {
        kubeFailure(error);
      }
      let issued: Awaited<ReturnType<ClusterTokenService['issue']>>;
      try {
        issued = await tokens.issue(name, caller.userId);
      } catch (error) {
        // No token, no way for an agent to register: the new cluster manager goes too.
        await api()
          .delete(KINDS.clusterManager, undefined, name)
          .catch((err: unknown) =>
            logger.error({ err }, 'could not delete a cluster manager without a token'),
          );
        throw error;
      }
      await audit(caller, 'create', name, [{ public: !!input.public, organizations }]);
      return { id: name, token_id: issued.id, token: issued.token };
    },

    /** PUT /cluster/{id}/name (super admin). */
    async rename(caller: Caller, id: string, name: string) {
      const cm = await update(id, (c) => {
        c.spec.title = name;
      });
      await audit(caller, 'rename', id, [{ name }]);
      return clusterView(cm, caller.currentOrganizationId);
    },

    /** PUT /cluster/{id} (super admin): public, or private to the organizations listed. */
    async setVisibility(caller: Caller, id: string, input: ClusterUpdate) {
      const organizations = input.organizations ? [...new Set(input.organizations)] : undefined;
      if (organizations) await assertOrganizationsExist(organizations);
      const cm = await update(id, (c) => {
        if (input.public !== undefined) c.spec.public = input.public;
        if (organizations) c.spec.organizations = organizations;
      });
      await audit(caller, 'update', id, [{ public: cm.spec.public, organizations: cm.spec.organizations }]);
      return clusterView(cm, caller.currentOrganizationId);
    },

    /**
     * DELETE /cluster/{id}. The super admin deletes it (never the platform's) and its tokens stop
     * working; an organization admin unlinks it from their organization, which deletes it when no
     * organization is left on a private one.
     */
    async remove(caller: Caller, id: string): Promise<'deleted' | 'unlinked'> {
      const cm = await visible(caller, id);
      if (cm.spec.platformOwned)
        throw conflict('id: the platform cluster manager cannot be deleted, it is where the platform runs');
      const own = caller.currentOrganizationId;
      if (!caller.isSuperAdmin) {
        if (!own || !(cm.spec.organizations ?? []).includes(own))
          throw forbidden(
            'id: only the super admin may remove a cluster manager not assigned to your organization',
          );
        const rest = (cm.spec.organizations ?? []).filter((o) => o !== own);
        if (rest.length > 0 || cm.spec.public) {
          await update(id, (c) => {
            c.spec.organizations = (c.spec.organizations ?? []).filter((o) => o !== own);
          });
          await audit(caller, 'unlink', id);
          return 'unlinked';
        }
      }
      try {
        await api().delete(KINDS.clusterManager, undefined, id);
      } catch (error) {
        kubeFailure(error);
      }
      await tokens.revokeAll(id);
      await audit(caller, 'remove', id);
      return 'deleted';
    },

    /**
     * PUT/DELETE /organizations/{id}/disable/{clusterId}: the organization takes a cluster manager
     * out of its scheduling (the operator's admission reads spec.disabledOrganizations) or puts it
     * back. One it may not use (another organization's private one) or none at all is a 404. The
     * organization row's disabled_clusters (GET /organizations) is written by its service.
     */
    async setDisabled(organizationId: string, id: string, disabled: boolean) {
      let cm: ClusterManager | undefined;
      try {
        cm = await api().get<ClusterManager>(KINDS.clusterManager, undefined, id);
      } catch (error) {
        kubeFailure(error);
      }
      if (!cm || !usableBy(cm, organizationId)) throw notFound('Cluster manager');
      await update(id, (c) => {
        const others = (c.spec.disabledOrganizations ?? []).filter((o) => o !== organizationId);
        c.spec.disabledOrganizations = disabled ? [...others, organizationId] : others;
      });
    },

    /** The organization's registry account as a dockerconfigjson Secret in its namespace (or none). */
    async saveRegistrySecret(org: { id: string; slug: string }, registry: StoredRegistry) {
      try {
        await syncRegistrySecret(`sf-${org.slug}`, org.id, registry);
      } catch (error) {
        kubeFailure(error);
      }
    },
  };
}

export type ClusterService = ReturnType<typeof createClusterService>;
