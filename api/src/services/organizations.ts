import type { Knex } from 'knex';
import { readCachesFor } from './read-caches.js';
import { transaction } from './transaction.js';
import type { Caller } from './callers.js';
import { conflict, forbidden, notFound, unprocessable } from '../errors.js';
import type { Role } from '../authorization.js';
import {
  assertWithinCapacity,
  editMaximum,
  freeCapacity,
  normalizeCapacity,
  type ClusterCapacity,
} from './cluster-capacity.js';
import type { EventService } from './events.js';
import type { KubeTenancy, OrganizationSettings, Resources } from './kube-tenancy.js';
import { createPreferenceService } from './preferences.js';
import {
  addOrganizationMember,
  assertWithin,
  quotaColumns,
  quotaOf,
  resolveUsers,
  sumResources,
  uniqueSlug,
  type Row,
} from './tenancy-shared.js';

/**
 * Serializes the transactions that check and change organization quotas, so two
 * concurrent creations cannot both take the last free capacity.
 */
const QUOTA_LOCK = 0x5346_0001;

export interface OrganizationInput {
  name: string;
  quota?: Resources | undefined;
  admins?: string[] | undefined;
}

export interface OrganizationUpdate {
  name?: string | undefined;
  quota?: Resources | undefined;
  admins?: string[] | undefined;
  automatic_resources?: Resources | undefined;
  use_automatic_resources?: boolean | undefined;
  enable_provisioner?: boolean | undefined;
  lock_provisioner?: boolean | undefined;
  use_free?: boolean | undefined;
}

interface Deps {
  db: Knex;
  kube: KubeTenancy;
  events: EventService;
  clusterCapacity: ClusterCapacity;
}

export function createOrganizationService({ db, kube, events, clusterCapacity }: Deps) {
  const preferences = createPreferenceService(db);

  /**
   * The organization namespace with the settings admission and the runner read (its annotations):
   * the provisioner's allowance and the mount points. Inside a transaction, a refusal undoes it.
   */
  async function syncSettings(row: Row, conn: Knex = db) {
    const disabledForAll = await createPreferenceService(conn).get('disable_provisioning');
    await kube.syncOrganization({
      id: row.id as string,
      slug: row.slug as string,
      settings: organizationSettings(row, disabledForAll),
    });
  }

  async function view(row: Row, role?: Role, conn: Knex = db) {
    const members = await conn('organization_members')
      .where({ organization_id: row.id })
      .select('user_id', 'role');
    return {
      id: row.id,
      name: row.name,
      slug: row.slug,
      creation_date: new Date(row.created_at as string).toISOString(),
      quota: quotaOf(row as never),
      admins: members.filter((m) => m.role === 'organization_admin').map((m) => m.user_id),
      members: members.map((m) => m.user_id),
      automatic_resources: row.automatic_resources,
      use_automatic_resources: row.use_automatic_resources,
      enable_provisioner: row.enable_provisioner,
      lock_provisioner: row.lock_provisioner,
      use_free: row.use_free,
      registry: redactRegistry(row.registry as Registry | null),
      mount_points: row.mount_points,
      safe_mount: row.safe_mount,
      base_path: row.mount_base,
      algorithm: row.algorithm,
      disabled_clusters: row.disabled_clusters,
      ...(role ? { role } : {}),
    };
  }

  async function get(id: string, conn: Knex = db) {
    const row = await conn('organizations').where({ id }).first();
    if (!row) throw notFound('Organization');
    return row;
  }

  /**
   * Spec 3 §5: the alive clusters' total, what organization quotas hold, and the free
   * capacity (rounded down, never below 0); total and free are null when the capacity is
   * unknown (no Kubernetes API: nothing is capped). Inside a transaction, the allocation
   * is read under QUOTA_LOCK, held until it commits.
   */
  async function capacity(conn: Knex = db) {
    const alive = normalizeCapacity(await clusterCapacity());
    if (alive && conn.isTransaction) await conn.raw('select pg_advisory_xact_lock(?)', [QUOTA_LOCK]);
    const rows = await conn('organizations').select('quota_cpu', 'quota_memory', 'quota_disk');
    const allocated = sumResources(rows.map(quotaOf));
    return {
      total: alive?.total ?? null,
      clusters: alive?.clusters ?? null,
      allocated,
      free: alive ? freeCapacity(alive.total, allocated) : null,
    };
  }

  /**
   * A new organization's quota is at most the free capacity; an edited one's at most the
   * free capacity plus its current quota. Nothing is read when the quota does not grow.
   */
  async function assertFitsCluster(trx: Knex, quota: Resources, current?: Resources) {
    const base = current ?? { cpu: 0, memory: 0, disk: 0 };
    if (quota.cpu <= base.cpu && quota.memory <= base.memory && quota.disk <= base.disk) return;
    const { free } = await capacity(trx);
    if (!free) return;
    assertWithinCapacity(quota, current ? editMaximum(free, current) : free, !!current);
  }

  async function assertCoversGroups(trx: Knex, organizationId: string, quota: Resources) {
    const groups = await trx('groups')
      .where({ organization_id: organizationId })
      .select('quota_cpu', 'quota_memory', 'quota_disk');
    const given = sumResources(groups.map(quotaOf));
    assertWithin(given, quota, 'quota', 'below the quota already given to its groups');
  }

  async function assertNameFree(trx: Knex, name: string, exceptId?: string) {
    const clash = await trx('organizations')
      .whereRaw('lower(name) = lower(?)', [name])
      .modify((q) => (exceptId ? q.whereNot({ id: exceptId }) : q))
      .first('id');
    if (clash) throw conflict('name: an organization with this name already exists');
  }

  return {
    view,
    get,
    capacity: () => capacity(),

    async list(caller: Caller) {
      const query = db('organizations').orderBy('name');
      if (!caller.isSuperAdmin) query.whereIn('id', [...caller.memberships.keys()]);
      const rows = await query;
      return Promise.all(
        rows.map((row) => view(row, caller.isSuperAdmin ? 'admin' : caller.memberships.get(row.id))),
      );
    },

    /** The creator becomes its admin (spec 1 §6, spec 3 §6); its namespace is created before commit. */
    async create(
      actor: Caller | { userId: string; name: string },
      input: OrganizationInput,
      trx?: Knex.Transaction,
    ) {
      const work = async (t: Knex.Transaction) => {
        await assertNameFree(t, input.name);
        const quota = input.quota ?? { cpu: 0, memory: 0, disk: 0 };
        await assertFitsCluster(t, quota);
        const taken = new Set<string>((await t('organizations').pluck('slug')) as string[]);
        const [row] = await t('organizations')
          .insert({ name: input.name, slug: uniqueSlug(input.name, taken), ...quotaColumns(quota) })
          .returning('*');
        const adminIds = await resolveUsers(t, input.admins ?? [], 'admins');
        for (const userId of new Set([actor.userId, ...adminIds])) {
          await addOrganizationMember(t, row.id, userId, 'organization_admin');
        }
        await events.record(
          actor,
          { kind: 'organizations', action: 'create', subject: row.name, organizationId: row.id },
          t,
        );
        await syncSettings(row, t);
        return view(row, undefined, t);
      };
      return trx ? work(trx) : transaction(db, work);
    },

    async update(actor: Caller, role: Role, id: string, input: OrganizationUpdate) {
      const row = await transaction(db, async (trx) => {
        const current = await get(id, trx);
        const changes: Record<string, unknown> = {};
        if (role !== 'admin') {
          // Spec 3 §7: an organization admin edits the name and the provisioner limits only.
          for (const field of [
            'quota',
            'admins',
            'enable_provisioner',
            'lock_provisioner',
            'use_free',
          ] as const) {
            if (input[field] !== undefined) throw forbidden(`${field}: only the super admin may change it`);
          }
          if (
            current.lock_provisioner &&
            (input.automatic_resources || input.use_automatic_resources !== undefined)
          ) {
            throw forbidden('automatic_resources: the provisioner is locked');
          }
          if (
            !current.enable_provisioner &&
            (input.automatic_resources || input.use_automatic_resources === true)
          ) {
            throw forbidden('automatic_resources: the provisioner is not enabled for this organization');
          }
        }
        if (input.name !== undefined) {
          await assertNameFree(trx, input.name, id);
          changes.name = input.name;
        }
        if (input.quota) {
          await assertFitsCluster(trx, input.quota, quotaOf(current));
          await assertCoversGroups(trx, id, input.quota);
          Object.assign(changes, quotaColumns(input.quota));
        }
        if (input.automatic_resources)
          changes.automatic_resources = JSON.stringify(input.automatic_resources);
        for (const flag of [
          'use_automatic_resources',
          'enable_provisioner',
          'lock_provisioner',
          'use_free',
        ] as const) {
          if (input[flag] !== undefined) changes[flag] = input[flag];
        }
        const [updated] = Object.keys(changes).length
          ? await trx('organizations').where({ id }).update(changes).returning('*')
          : [current];
        if (input.admins) await setAdmins(trx, id, await resolveUsers(trx, input.admins, 'admins'));
        if (
          input.automatic_resources ||
          input.use_automatic_resources !== undefined ||
          input.enable_provisioner !== undefined
        )
          await syncSettings(updated, trx);
        await events.record(
          actor,
          { kind: 'organizations', action: 'update', subject: updated.name, organizationId: id },
          trx,
        );
        return updated;
      });
      return view(row);
    },

    /** Without purge the members keep their accounts; with purge those who belong nowhere else go too. */
    async remove(actor: Caller, id: string, purge: boolean) {
      const org = await get(id);
      await transaction(db, async (trx) => {
        if (purge) {
          const memberIds = await trx('organization_members').where({ organization_id: id }).pluck('user_id');
          const elsewhere = await trx('organization_members')
            .whereIn('user_id', memberIds)
            .whereNot({ organization_id: id })
            .pluck('user_id');
          const onlyHere = memberIds.filter((u: string) => !elsewhere.includes(u) && u !== actor.userId);
          await trx('users').whereIn('id', onlyHere).where({ is_super_admin: false }).delete();
        }
        await trx('organizations').where({ id }).delete();
        await events.record(
          actor,
          {
            kind: 'organizations',
            action: 'remove',
            subject: org.name,
            organizationId: null,
            data: [{ purge }],
          },
          trx,
        );
      });
      await kube.deleteOrganization({ id: org.id, slug: org.slug });
    },

    async setAdmins(actor: Caller, id: string, admins: string[]) {
      const org = await get(id);
      await transaction(db, async (trx) => {
        await setAdmins(trx, id, await resolveUsers(trx, admins, 'admins'));
        await events.record(
          actor,
          {
            kind: 'organizations',
            action: 'update',
            subject: org.name,
            organizationId: id,
            data: [{ admins }],
          },
          trx,
        );
      });
      return view(await get(id));
    },

    /** algorithm, registry, mount points, disabled clusters: plain column updates with an event. */
    patch,

    /**
     * Every organization namespace's provisioner annotation again: after the super admin turns
     * 'Disable the provisioning for all the organizations' on or off.
     */
    async syncProvisioning() {
      const disabledForAll = await preferences.get('disable_provisioning');
      for (const row of await db('organizations').orderBy('name')) {
        await kube.syncOrganization({
          id: row.id,
          slug: row.slug,
          settings: organizationSettings(row, disabledForAll),
        });
      }
    },

    /** A deleted cluster manager leaves no organization's disabled list. */
    async forgetCluster(clusterId: string) {
      await db('organizations')
        .whereRaw('disabled_clusters @> ?::jsonb', [JSON.stringify([clusterId])])
        .update({ disabled_clusters: db.raw('disabled_clusters - ?::text', [clusterId]) });
      readCachesFor(db).wrote(db, 'organizations');
    },

    /** Takes a cluster manager out of (or back into) the organization's scheduling. */
    async setClusterDisabled(actor: Caller, id: string, clusterId: string, disabled: boolean) {
      const org = await get(id);
      const others = (org.disabled_clusters as string[]).filter((c) => c !== clusterId);
      return patch(
        actor,
        id,
        { disabled_clusters: JSON.stringify(disabled ? [...others, clusterId] : others) },
        disabled ? 'disable' : 'enable',
      );
    },
  };

  async function patch(actor: Caller, id: string, changes: Record<string, unknown>, what: string) {
    const org = await get(id);
    // Mount points reach the runner, the algorithm the operator's admission, through the
    // organization namespace: written before commit.
    const row = await transaction(db, async (trx) => {
      const [updated] = await trx('organizations').where({ id }).update(changes).returning('*');
      if (what === 'mount' || what === 'algorithm') await syncSettings(updated, trx);
      return updated;
    });
    readCachesFor(db).wrote(db, 'organizations');
    await events.record(actor, {
      kind: 'organizations',
      action: 'update',
      subject: org.name,
      organizationId: id,
      data: [{ [what]: true }],
    });
    return view(row);
  }

  /** Exactly these users are organization admins afterwards (they join if they were not members). */
  async function setAdmins(trx: Knex, organizationId: string, adminIds: string[]) {
    if (adminIds.length === 0) throw unprocessable('admins: an organization needs at least one admin');
    await trx('organization_members')
      .where({ organization_id: organizationId, role: 'organization_admin' })
      .whereNotIn('user_id', adminIds)
      .update({ role: 'user' });
    for (const userId of adminIds)
      await addOrganizationMember(trx, organizationId, userId, 'organization_admin');
  }
}

/**
 * What the organization namespace carries for admission and the runner. The provisioner lends
 * `automatic_resources` when the super admin enabled it for the organization (enable_provisioner),
 * the organization turned it on (use_automatic_resources) and provisioning is not disabled for all.
 */
export function organizationSettings(row: Row, disabledForAll: boolean): OrganizationSettings {
  const lends = !disabledForAll && row.enable_provisioner === true && row.use_automatic_resources === true;
  const amount = row.automatic_resources as Resources | null;
  return {
    provisioner: lends && amount ? { cpu: amount.cpu, memory: amount.memory, disk: amount.disk } : null,
    mounts: { base: row.mount_base as string, points: (row.mount_points as string[] | null) ?? [] },
    algorithm: (row.algorithm as string | null) ?? 'round_robin',
  };
}

/** An organization's image registry, as stored. */
interface Registry {
  use_custom: boolean;
  url?: string;
  username?: string;
  password?: string;
}

/** The registry password is write-only. */
function redactRegistry(registry: Registry | null): Registry {
  if (!registry) return { use_custom: false };
  const { password, ...rest } = registry;
  return { ...rest, password: password ? '********' : '' };
}

/** `//` collapsed, a leading `/`, no trailing `/`; `.` and `..` segments are refused (they would escape). */
function cleanPath(path: string, field: string): string {
  const collapsed = `/${path.trim()}`.replace(/\/{2,}/g, '/').replace(/(.)\/$/, '$1');
  if (collapsed.split('/').some((segment) => segment === '..' || segment === '.'))
    throw unprocessable(`${field}: must not contain . or .. segments`);
  return collapsed;
}

const underMnt = (p: string) => (/^\/mnt(\/|$)/.test(p) ? p : `/mnt${p === '/' ? '' : p}`);
const within = (p: string, base: string) => base === '/' || p === base || p.startsWith(`${base}/`);

/**
 * Spec 3 §5 mount points: double slashes collapse; with safe mount everything lives under /mnt
 * (the base path and each row get the prefix); empty rows go, repeated ones are kept once. A
 * relative row is taken inside the base path; an absolute one outside it is refused (422 naming
 * the row). No base path given: '/mnt' with safe mount, else '/'.
 */
export function normalizeMountPoints(
  points: string[],
  safeMount: boolean,
  basePath?: string,
): { base: string; points: string[] } {
  let base = cleanPath(basePath?.trim() || (safeMount ? '/mnt' : '/'), 'base_path');
  if (safeMount) base = underMnt(base);
  const out: string[] = [];
  points.forEach((raw, i) => {
    const row = raw.trim();
    if (!row) return;
    const field = `mount_points.${i}`;
    let path = row.startsWith('/') ? cleanPath(row, field) : cleanPath(`${base}/${row}`, field);
    if (safeMount) path = underMnt(path);
    if (!within(path, base)) throw unprocessable(`${field}: ${row} is outside the base path ${base}`);
    if (!out.includes(path)) out.push(path);
  });
  return { base, points: out };
}

export type OrganizationService = ReturnType<typeof createOrganizationService>;
