import type { Knex } from 'knex';
import { transaction } from './transaction.js';
import type { Caller } from './callers.js';
import { conflict, forbidden, notFound, unprocessable } from '../errors.js';
import type { Role } from '../authorization.js';
import type { EventService } from './events.js';
import type { KubeTenancy, Resources } from './kube-tenancy.js';
import type { NotificationService } from './notifications.js';
import {
  FIRST_GID,
  addOrganizationMember,
  assertWithin,
  quotaColumns,
  quotaOf,
  resolveUsers,
  sumResources,
  uniqueSlug,
  type Row,
} from './tenancy-shared.js';

export interface GroupInput {
  organization?: string | undefined;
  name: string;
  members?: string[] | undefined;
  admins?: string[] | undefined;
  quota?: Resources | undefined;
  use_free?: boolean | undefined;
  gid?: number | undefined;
}

interface Deps {
  db: Knex;
  kube: KubeTenancy;
  events: EventService;
  notifications: NotificationService;
}

export function createGroupService({ db, kube, events, notifications }: Deps) {
  async function view(row: Row) {
    const members = await db('group_members').where({ group_id: row.id }).select('user_id', 'is_admin');
    const org = await db('organizations').where({ id: row.organization_id }).first('name');
    return {
      id: row.id,
      uuid: row.id,
      organization: row.organization_id,
      organization_name: org?.name ?? '',
      name: row.name,
      quota: quotaOf(row as never),
      admins: members.filter((m) => m.is_admin).map((m) => m.user_id),
      members: members.map((m) => m.user_id),
      gid: row.gid,
      use_free: row.use_free,
    };
  }

  /** A group's quota together with its siblings' never exceeds the organization's (ARCHITECTURE 'Resource model'). */
  async function assertFitsOrganization(
    trx: Knex,
    organizationId: string,
    quota: Resources,
    exceptId?: string,
  ) {
    const org = await trx('organizations').where({ id: organizationId }).first();
    const siblings = await trx('groups')
      .where({ organization_id: organizationId })
      .modify((q) => (exceptId ? q.whereNot({ id: exceptId }) : q))
      .select('quota_cpu', 'quota_memory', 'quota_disk');
    const free = sumResources([quotaOf(org), ...siblings.map((s: Row) => negate(quotaOf(s)))]);
    assertWithin(quota, free, 'quota', 'exceeds the organization quota');
  }

  async function setMembers(
    trx: Knex,
    group: { id: string; organization_id: string },
    members: string[],
    admins: string[],
  ) {
    const memberIds = await resolveUsers(trx, members, 'members');
    const adminIds = await resolveUsers(trx, admins, 'admins');
    const everyone = [...new Set([...memberIds, ...adminIds])];
    const before: string[] = await trx('group_members').where({ group_id: group.id }).pluck('user_id');
    await trx('group_members').where({ group_id: group.id }).whereNotIn('user_id', everyone).delete();
    for (const userId of everyone) {
      await addOrganizationMember(trx, group.organization_id, userId, 'user');
      await trx('group_members')
        .insert({ group_id: group.id, user_id: userId, is_admin: adminIds.includes(userId) })
        .onConflict(['group_id', 'user_id'])
        .merge(['is_admin']);
    }
    return everyone.filter((u) => !before.includes(u));
  }

  async function get(id: string, conn: Knex = db) {
    const row = await conn('groups').where({ id }).first();
    if (!row) throw notFound('Group');
    return row;
  }

  async function syncKube(group: Record<string, unknown>, conn: Knex) {
    const org = await conn('organizations').where({ id: group.organization_id }).first('id', 'slug');
    await kube.syncGroup(org, {
      id: group.id as string,
      slug: group.slug as string,
      quota: quotaOf(group as never),
    });
  }

  async function announce(added: string[], group: { name: string; organization_id: string; id: string }) {
    for (const userId of added) {
      await notifications.notify({
        userId,
        organizationId: group.organization_id,
        title: 'Group',
        type: 'primary',
        text: `You were added to the group ${group.name}`,
        data: { action: 'group', uuid: group.id },
      });
    }
  }

  return {
    view,
    get,

    /** The super admin sees every group (optionally of one organization); the others their current organization's. */
    async list(caller: Caller, role: Role, organization?: string) {
      const query = db('groups').orderBy('name');
      if (caller.isSuperAdmin) {
        if (organization) query.where({ organization_id: organization });
      } else {
        query.where({ organization_id: caller.currentOrganizationId });
        if (role === 'group_admin') query.whereIn('id', [...caller.adminGroups.keys()]);
      }
      return Promise.all((await query).map(view));
    },

    /** GET /group/name: id and name of the caller's groups in their current organization. */
    async namesOf(caller: Caller) {
      return db('groups')
        .join('group_members', 'group_members.group_id', 'groups.id')
        .where({
          'group_members.user_id': caller.userId,
          'groups.organization_id': caller.currentOrganizationId,
        })
        .orderBy('groups.name')
        .select('groups.id', 'groups.name');
    },

    async create(actor: Caller, role: Role, input: GroupInput) {
      const organizationId =
        role === 'admin' && input.organization ? input.organization : actor.currentOrganizationId;
      if (!organizationId) throw unprocessable('organization: required');
      if (role !== 'admin' && input.organization && input.organization !== organizationId) {
        throw forbidden('organization: only your current organization');
      }
      const { row, added } = await transaction(db, async (trx) => {
        const org = await trx('organizations').where({ id: organizationId }).first();
        if (!org) throw unprocessable('organization: unknown organization');
        if (
          await trx('groups')
            .where({ organization_id: organizationId })
            .whereRaw('lower(name) = lower(?)', [input.name])
            .first()
        ) {
          throw conflict('name: a group with this name already exists');
        }
        const quota = input.quota ?? { cpu: 0, memory: 0, disk: 0 };
        await assertFitsOrganization(trx, organizationId, quota);
        const taken = new Set<string>(
          await trx('groups').where({ organization_id: organizationId }).pluck('slug'),
        );
        const { max } =
          (await trx('groups').where({ organization_id: organizationId }).max('gid as max').first()) ?? {};
        const gid = input.gid ?? Math.max(FIRST_GID, Number(max ?? FIRST_GID - 1) + 1);
        const [row] = await trx('groups')
          .insert({
            organization_id: organizationId,
            name: input.name,
            slug: uniqueSlug(input.name, taken),
            gid,
            use_free: input.use_free ?? false,
            ...quotaColumns(quota),
          })
          .returning('*');
        const added = await setMembers(trx, row, input.members ?? [], input.admins ?? []);
        await events.record(
          actor,
          { kind: 'groups', action: 'create', subject: row.name, organizationId },
          trx,
        );
        await syncKube({ ...row, organization_id: org.id }, trx);
        return { row, added };
      });
      await announce(added, row);
      return view(row);
    },

    async update(actor: Caller, id: string, input: Partial<GroupInput>) {
      const { row, added } = await transaction(db, async (trx) => {
        const current = await get(id, trx);
        if (input.organization && input.organization !== current.organization_id) {
          throw unprocessable('organization: a group cannot move between organizations');
        }
        const changes: Record<string, unknown> = {};
        if (input.name !== undefined && input.name !== current.name) {
          if (
            await trx('groups')
              .where({ organization_id: current.organization_id })
              .whereNot({ id })
              .whereRaw('lower(name) = lower(?)', [input.name])
              .first()
          ) {
            throw conflict('name: a group with this name already exists');
          }
          changes.name = input.name; // the namespace keeps its slug: renaming never moves workloads
        }
        if (input.quota) {
          await assertFitsOrganization(trx, current.organization_id, input.quota, id);
          Object.assign(changes, quotaColumns(input.quota));
        }
        if (input.gid !== undefined) changes.gid = input.gid;
        if (input.use_free !== undefined) changes.use_free = input.use_free;
        const [row] = Object.keys(changes).length
          ? await trx('groups').where({ id }).update(changes).returning('*')
          : [current];
        const added =
          input.members || input.admins
            ? await setMembers(
                trx,
                row,
                input.members ?? (await trx('group_members').where({ group_id: id }).pluck('user_id')),
                input.admins ??
                  (await trx('group_members').where({ group_id: id, is_admin: true }).pluck('user_id')),
              )
            : [];
        await events.record(
          actor,
          { kind: 'groups', action: 'update', subject: row.name, organizationId: row.organization_id },
          trx,
        );
        if (input.quota) await syncKube(row, trx);
        return { row, added };
      });
      await announce(added, row);
      return view(row);
    },

    async remove(actor: Caller, id: string) {
      const group = await get(id);
      const org = await db('organizations').where({ id: group.organization_id }).first('id', 'slug');
      await transaction(db, async (trx) => {
        await trx('groups').where({ id }).delete();
        await events.record(
          actor,
          { kind: 'groups', action: 'remove', subject: group.name, organizationId: group.organization_id },
          trx,
        );
      });
      await kube.deleteGroup(org, group);
    },
  };
}

const negate = (r: Resources): Resources => ({ cpu: -r.cpu, memory: -r.memory, disk: -r.disk });

export type GroupService = ReturnType<typeof createGroupService>;
