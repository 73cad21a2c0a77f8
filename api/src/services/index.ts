import type { KubeConfig } from '@kubernetes/client-node';
import type { ArgoServer } from '@sandflow/kube';
import type { Builder } from '@sandflow/images';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { ApiConfig } from '../config.js';
import { CACHE_NAMES, readCachesFor, type CacheName } from './read-caches.js';
import { loadCallerCached, type Caller } from './callers.js';
import { unavailable } from '../errors.js';
import { createAccountService } from './accounts.js';
import { createContainerService } from './containers.js';
import { createImageService, type ImagesDeps } from './images.js';
import { kubeClusterCapacity, type ClusterCapacity } from './cluster-capacity.js';
import { createEventService } from './events.js';
import { createGroupService } from './groups.js';
import { createKubeTenancy, noKubeTenancy, type KubeTenancy } from './kube-tenancy.js';
import type { Mailer } from './mailer.js';
import { createMemberService } from './members.js';
import { createNotificationService, type RealtimePublisher } from './notifications.js';
import { createOrganizationService } from './organizations.js';
import { createOutboxService } from './outbox.js';
import { platformRegistrySecret } from './clusters-registry.js';
import { createPreferenceService } from './preferences.js';
import { createSecretBox } from './secret-box.js';
import { createProfileService } from './profile.js';
import { createResources } from '../resources/index.js';
import { createSandboxService } from './sandboxes.js';
import { createRunFileService } from './run-files.js';
import { createWorkflowService } from './workflows.js';
import { createRunService } from './runs.js';
import { watchRuns } from './runs-events.js';
import { createSessionService } from './sessions.js';
import { createReplicaBus, postgresTransport, type ReplicaBus } from './replica-bus.js';
import { createTokenService } from './tokens.js';
import { createClusterTokenService } from './cluster-tokens.js';
import { createClusterService } from './clusters.js';
import { recordRuns } from './run-records.js';
import { sampleClusterUsage } from './statistics-sampler.js';
import { createStatisticsService } from './statistics.js';
import { createBillingService } from './billing.js';
import { DatabaseStore } from './rate-limit-store.js';

/** What the launcher hands to `createApp` and `attachRealtime`. */
export interface ApiDeps {
  db: Knex;
  /** The Kubernetes API namespaces and quotas are written to; null: none (unit tests). */
  kube: KubeConfig | KubeTenancy | null;
  logger: Logger;
  mailer: Mailer;
  config: ApiConfig;
  /**
   * Capacity of the alive clusters, which caps organization quotas. Absent: read from the
   * ClusterManagers of `kube` when it is a KubeConfig, else unknown (uncapped).
   */
  clusterCapacity?: ClusterCapacity;
  /** The sandbox page's containers; absent (no bwrap here): the builder routes answer 503. */
  builder?: Builder;
  /** The image check's local catalog and registry credentials. */
  images?: ImagesDeps;
  /** Tests: every answer is parsed with its route's result schema; one it does not describe is a 500. */
  checkAnswers?: boolean;
  /**
   * argo-server (URL and bearer token), where run logs and output files are read: the local
   * runner's `Runner.argoServer` in embedded mode. Absent: those routes and the log socket answer 503.
   */
  argo?: ArgoServer;
  /** Agents' argo-servers, reached over their sockets (agents/hub.ts): for runs placed on an agent. */
  agentArgo?: (clusterManager: string) => ArgoServer | undefined;
  /**
   * Where the platform default registry's dockerconfigjson Secret goes (embedded mode: the Secret
   * the local runner pulls with). Absent: not written (cluster mode: the chart writes its own).
   */
  platformRegistrySecret?: { namespace: string; name: string };
}

export interface ScopeTarget {
  organizationId: string;
  groupId?: string;
}

/**
 * Creating and updating run inside the database transaction, so a Kubernetes failure
 * undoes the change and answers 503. Deleting runs after the commit: the rows are gone
 * either way, so a failure is logged (the namespaces are left for a later clean-up)
 * rather than answered as an error.
 */
function reportingFailures(kube: KubeTenancy, logger: Logger): KubeTenancy {
  const refused = (error: unknown): never => {
    logger.error({ err: error }, 'kubernetes tenancy sync failed');
    throw unavailable(
      'kubernetes_unavailable',
      'The Kubernetes API did not accept the change, please retry.',
      error,
    );
  };
  const logged = (error: unknown) => logger.error({ err: error }, 'kubernetes namespace deletion failed');
  return {
    syncOrganization: (org) => kube.syncOrganization(org).catch(refused),
    syncGroup: (org, group) => kube.syncGroup(org, group).catch(refused),
    deleteGroup: (org, group) => kube.deleteGroup(org, group).catch(logged),
    deleteOrganization: (org) => kube.deleteOrganization(org).catch(logged),
  };
}

function buildServices(deps: ApiDeps) {
  const { db, config, logger, mailer } = deps;
  const kube = reportingFailures(
    !deps.kube ? noKubeTenancy : 'syncGroup' in deps.kube ? deps.kube : createKubeTenancy(deps.kube),
    logger,
  );
  const bus = busFor(db, logger);
  const realtime: { publisher?: RealtimePublisher } = {};
  const tokens = createTokenService(db, config);
  const events = createEventService(db);
  // Agent tokens of cluster managers; the agent's socket verifies with clusterTokens.verifyAgentToken.
  const clusterTokens = createClusterTokenService({ db, events });
  // A notification reaches the person's sockets here and, through the bus, in the other
  // API processes, which read it from the database when they hold a socket of theirs.
  const notifications = createNotificationService(db, mailer, () => ({
    publish(userId, message) {
      realtime.publisher?.publish(userId, message);
      bus.publish('notification', { userId, id: message.id });
    },
  }));
  bus.on('notification', async (data) => {
    const { userId, id } = data as { userId: string; id: number };
    const local = realtime.publisher;
    if (!local?.connected?.(userId)) return;
    const message = await notifications.message(userId, id);
    if (message) local.publish(userId, message);
  });
  bus.onResync(() => realtime.publisher?.resync?.());
  // Registry passwords are stored sealed under SANDFLOW_SECRETS_KEY (secret-box.ts).
  const secrets = createSecretBox(config.secrets);
  const preferences = createPreferenceService(db, secrets);
  const profile = createProfileService(db, events);
  const outbox = createOutboxService(db);
  const organizations = createOrganizationService({
    db,
    kube,
    events,
    clusterCapacity:
      deps.clusterCapacity ??
      (deps.kube && !('syncGroup' in deps.kube) ? kubeClusterCapacity(deps.kube, logger) : async () => null),
  });
  // Organizations saved before their settings were mirrored (or while the Kubernetes API was down)
  // get their namespace annotations — provisioner allowance, mount points — once at start, so the
  // operator's admission and the runner's mount check see what the database holds.
  if (deps.kube && !('syncGroup' in deps.kube))
    organizations
      .syncProvisioning()
      .catch((error: unknown) => logger.warn({ err: error }, 'organization settings sync at start failed'));
  // The platform default registry (Super Settings → Miscellaneous) as the runner's pull Secret:
  // written when it is saved, and once at start for what was saved before.
  const writeRegistrySecret =
    deps.platformRegistrySecret && deps.kube && !('syncGroup' in deps.kube)
      ? platformRegistrySecret(deps.kube, deps.platformRegistrySecret)
      : null;
  const platformRegistry = {
    async sync() {
      if (writeRegistrySecret) await writeRegistrySecret(await preferences.registry());
    },
  };
  platformRegistry
    .sync()
    .catch((error: unknown) => logger.warn({ err: error }, 'default registry Secret sync at start failed'));
  // Cluster managers (ClusterManager resources) and the organization registry Secrets.
  const clusters = createClusterService({
    db,
    kubeConfig: deps.kube && !('syncGroup' in deps.kube) ? deps.kube : null,
    tokens: clusterTokens,
    events,
    logger,
  });
  const images = createImageService({ db, preferences, secrets, images: deps.images ?? {} });
  const containers = createContainerService({
    db,
    builder: deps.builder,
    images,
    // Called only after the services are built (the sandbox service commits through this one).
    sandboxes: (caller, id) => sandboxes.get(caller, id),
    graceMs: config.builder.terminalGraceMs,
    bus,
    logger,
  });
  const groups = createGroupService({ db, kube, events, notifications });
  // The resource access layer: informer caches of the custom resources, started with the services.
  const resources =
    deps.kube && !('syncGroup' in deps.kube)
      ? createResources({ kubeConfig: deps.kube, db, logger, events, realtime: () => realtime.publisher })
      : null;
  const sandboxes = createSandboxService({ db, resources, events, containers: () => containers });
  const workflows = createWorkflowService({ db, resources, events });
  const runFiles = createRunFileService({ db, resources, argo: deps.argo, agentArgo: deps.agentArgo });
  const sessions = createSessionService({ db, resources, events });
  const runs = createRunService({ db, resources, events });
  if (resources)
    watchRuns({
      db,
      resources,
      logger,
      mailer,
      notifications,
      realtime: () => realtime.publisher,
      publicUrl: config.publicUrl,
    });
  // Durable run outcomes and per-step allocations (statistics, billing), and per-minute cluster usage.
  const runRecorder = resources ? recordRuns({ db, resources, logger }) : null;
  const stopSampler =
    resources && deps.kube && !('syncGroup' in deps.kube)
      ? sampleClusterUsage({ db, kubeConfig: deps.kube, resources, logger })
      : () => {};
  const statistics = createStatisticsService({ db, resources });
  const billing = createBillingService({ db });
  const members = createMemberService({ db, config, events, mailer, notifications });
  const accounts = createAccountService({
    db,
    config,
    logger,
    mailer,
    tokens,
    events,
    members,
    organizations,
    preferences,
  });

  /** The organization a scoped route's target belongs to, or null when it does not exist (or is hidden). */
  async function scopeOf(
    kind: 'organization' | 'group' | 'user',
    id: string,
    caller: Caller,
  ): Promise<ScopeTarget | null> {
    if (kind === 'organization') {
      const org = await db('organizations').where({ id }).first('id');
      return org ? { organizationId: org.id } : null;
    }
    if (kind === 'group') {
      const group = await db('groups').where({ id }).first('id', 'organization_id');
      return group ? { organizationId: group.organization_id, groupId: group.id } : null;
    }
    // A user is in scope when they share the caller's current organization (or are the caller).
    const orgId = caller.currentOrganizationId;
    if (id === caller.userId)
      return orgId ? { organizationId: orgId } : caller.isSuperAdmin ? { organizationId: '' } : null;
    const user = await db('users').where({ id }).first('id');
    if (!user) return null;
    const shared = orgId
      ? await db('organization_members').where({ user_id: id, organization_id: orgId }).first()
      : null;
    if (shared) return { organizationId: orgId! };
    if (!caller.isSuperAdmin) return null;
    // The super admin acting on someone outside their current organization acts in that person's.
    const elsewhere = await db('organization_members').where({ user_id: id }).first('organization_id');
    return { organizationId: elsewhere?.organization_id ?? orgId ?? '' };
  }

  return {
    db,
    config,
    logger,
    mailer,
    // The login and password limiters count here, so the budgets hold across API replicas.
    rateLimitStore: (prefix: string) => new DatabaseStore({ db, logger, prefix }),
    kube,
    realtime,
    tokens,
    clusterTokens,
    clusters,
    events,
    notifications,
    preferences,
    secrets,
    platformRegistry,
    profile,
    outbox,
    organizations,
    groups,
    members,
    accounts,
    images,
    containers,
    resources,
    sandboxes,
    workflows,
    sessions,
    runs,
    runFiles,
    runRecorder,
    statistics,
    billing,
    /** Stops recording runs and sampling cluster usage (closeServices). */
    stopRecording: () => {
      runRecorder?.stop();
      stopSampler();
    },
    scopeOf,
    /** The database answers (GET /healthz). */
    ping: async () => void (await db.raw('select 1')),
    /** `issuedAt`: the access token's `iat`; a token older than the person's last password change is refused. */
    loadCaller: (userId: string, organizationId: string | null, issuedAt?: number) =>
      loadCallerCached(db, userId, organizationId, issuedAt),
    /** Empties the read caches (writes through knex already do; this is for other writers). */
    invalidateCaches: () => readCachesFor(db).invalidateAll(),
    bus,
  };
}

const buses = new WeakMap<Knex, ReplicaBus>();

/**
 * One replica bus per database handle, like the read caches it keeps in step across API
 * processes (PostgreSQL); with PGlite it sends nothing and everything stays in-process.
 */
function busFor(db: Knex, logger: Logger): ReplicaBus {
  let bus = buses.get(db);
  if (bus) return bus;
  bus = createReplicaBus(postgresTransport(db, logger), { logger });
  buses.set(db, bus);
  const caches = readCachesFor(db); // listens to db's writes from now on
  if (bus.shared) {
    const shared = bus;
    caches.fanOut = (names) => shared.publish('caches', names);
    shared.on('caches', (names) =>
      caches.invalidateHere(
        (names as string[]).filter((n): n is CacheName => CACHE_NAMES.includes(n as never)),
      ),
    );
    // Messages sent while the listening connection was down are lost: start afresh.
    shared.onResync(() => caches.invalidateHere(CACHE_NAMES));
  }
  return bus;
}

export type Services = ReturnType<typeof buildServices>;

// createApp(deps) and attachRealtime(server, deps) share one set of services (and
// so one realtime hub) when given the same deps object.
const byDeps = new WeakMap<ApiDeps, Services>();

/**
 * Stops what the services hold outside the database pool (the replica bus's listening
 * connection); call before destroying the database handle.
 */
export async function closeServices(deps: ApiDeps): Promise<void> {
  const services = byDeps.get(deps);
  if (!services) return;
  byDeps.delete(deps);
  if (buses.get(services.db) === services.bus) buses.delete(services.db);
  readCachesFor(services.db).fanOut = undefined;
  services.containers.close();
  await services.bus.close();
  services.stopRecording();
  await services.runRecorder?.idle();
  await services.resources?.stop();
}

export function servicesFor(deps: ApiDeps): Services {
  let services = byDeps.get(deps);
  if (!services) {
    services = buildServices(deps);
    byDeps.set(deps, services);
  }
  return services;
}
