import type { Knex } from 'knex';
import { readCachesFor } from './read-caches.js';
import { transaction } from './transaction.js';
import type { ApiConfig } from '../config.js';
import type { Caller } from './callers.js';
import { conflict, forbidden, notFound, unprocessable } from '../errors.js';
import type { Role } from '../authorization.js';
import type { EventService } from './events.js';
import type { Mailer } from './mailer.js';
import type { NotificationService } from './notifications.js';
import { FIRST_UID, addOrganizationMember, assertWithin, quotaOf, type Row } from './tenancy-shared.js';
import { hashToken, newOpaqueToken } from './tokens.js';

export interface UserQuotaInput {
  quota: {
    group: string;
    cpu: number;
    memory: number;
    disk: number;
    use_free?: boolean | undefined;
    use_percentage?: boolean | undefined;
  };
  uid?: number | undefined;
}

interface Deps {
  db: Knex;
  config: ApiConfig;
  events: EventService;
  mailer: Mailer;
  notifications: NotificationService;
}

const fullName = (u: Row) => `${u.first_name} ${u.last_name}`.trim();

export function createMemberService({ db, config, events, mailer, notifications }: Deps) {
  const caches = readCachesFor(db);
  /** One row per user, with their organizations (and groups) restricted to `organizationId` when given. */
  async function usersView(userIds: string[] | null, organizationId: string | null) {
    const users = await db('users')
      .modify((q) => (userIds ? q.whereIn('id', userIds) : q))
      .orderBy('email')
      .select('id', 'email', 'first_name', 'last_name', 'verified', 'created_at');
    const ids = users.map((u: Row) => u.id);
    const [memberships, groups] = await Promise.all([
      db('organization_members')
        .join('organizations', 'organizations.id', 'organization_members.organization_id')
        .whereIn('user_id', ids)
        .modify((q) => (organizationId ? q.where('organizations.id', organizationId) : q))
        .select('user_id', 'organizations.id', 'organizations.name', 'role', 'uid'),
      db('group_members')
        .join('groups', 'groups.id', 'group_members.group_id')
        .whereIn('user_id', ids)
        .modify((q) => (organizationId ? q.where('groups.organization_id', organizationId) : q))
        .select(
          'user_id',
          'groups.id',
          'groups.name',
          'groups.organization_id',
          'is_admin',
          'group_members.quota_cpu',
          'group_members.quota_memory',
          'group_members.quota_disk',
          'group_members.use_free',
          'group_members.use_percentage',
        ),
    ]);
    return users.map((u: Row) => {
      const orgs = memberships.filter((m: Row) => m.user_id === u.id);
      const gs = groups.filter((g: Row) => g.user_id === u.id);
      return {
        id: u.id,
        email: u.email,
        first_name: u.first_name,
        last_name: u.last_name,
        fullName: fullName(u),
        creation_time: new Date(u.created_at).toISOString(),
        verified: u.verified,
        uid: orgs[0]?.uid ?? null,
        organizations: orgs.map((o: Row) => ({ id: o.id, name: o.name, role: o.role, uid: o.uid })),
        groups: gs.map((g: Row) => ({
          id: g.id,
          name: g.name,
          organization: g.organization_id,
          admin: g.is_admin,
        })),
        quota: gs.map((g: Row) => ({
          group: g.id,
          cpu: Number(g.quota_cpu),
          memory: Number(g.quota_memory),
          disk: Number(g.quota_disk),
          use_free: g.use_free,
          use_percentage: g.use_percentage,
        })),
      };
    });
  }

  return {
    /** GET /admin/users: every account (super admin). */
    allUsers: () => usersView(null, null),

    /** GET /admin/users/organization: the members of one organization. */
    async organizationUsers(organizationId: string) {
      const ids = await db('organization_members')
        .where({ organization_id: organizationId })
        .pluck('user_id');
      return usersView(ids, organizationId);
    },

    /** GET /admin/username: id, email, organization of the people an admin can pick. */
    async usernames(caller: Caller) {
      const query = db('users')
        .leftJoin('organization_members', 'organization_members.user_id', 'users.id')
        .orderBy('users.email')
        .select('users.id', 'users.email', 'organization_members.organization_id as organization');
      if (!caller.isSuperAdmin)
        query.where('organization_members.organization_id', caller.currentOrganizationId);
      return query;
    },

    /** GET /admin/group/users: one table per group of the current organization (spec 3 §2.4). */
    async groupTables(caller: Caller, role: Role) {
      const groups = await db('groups')
        .where({ organization_id: caller.currentOrganizationId })
        .modify((q) => (role === 'group_admin' ? q.whereIn('id', [...caller.adminGroups.keys()]) : q))
        .orderBy('name');
      const rows = await db('group_members')
        .join('users', 'users.id', 'group_members.user_id')
        .leftJoin('organization_members', function () {
          this.on('organization_members.user_id', 'users.id').andOnVal(
            'organization_members.organization_id',
            caller.currentOrganizationId ?? '',
          );
        })
        .whereIn(
          'group_id',
          groups.map((g: Row) => g.id),
        )
        .select(
          'group_members.*',
          'users.email',
          'users.first_name',
          'users.last_name',
          'organization_members.uid',
        );
      return groups.map((g: Row) => ({
        id: g.id,
        name: g.name,
        quota: quotaOf(g),
        users: rows
          .filter((r) => r.group_id === g.id)
          .map((r) => ({
            uuid: `${g.id}-${r.user_id}`,
            id: r.user_id,
            name: fullName(r),
            email: r.email,
            uid: r.uid,
            admin: r.is_admin,
            quota: {
              group: g.id,
              cpu: Number(r.quota_cpu),
              memory: Number(r.quota_memory),
              disk: Number(r.quota_disk),
              use_free: r.use_free,
              use_percentage: r.use_percentage,
            },
            last_sandbox_created: null,
          })),
      }));
    },

    /**
     * PUT /user/{id}/quota. A fixed quota fits in what the other members leave of the
     * group's; a percentage is 0–100. The UID is ≥ 1000 and unique in the organization.
     */
    async setQuota(actor: Caller, role: Role, organizationId: string, userId: string, input: UserQuotaInput) {
      await transaction(db, async (trx) => {
        const group = await trx('groups')
          .where({ id: input.quota.group, organization_id: organizationId })
          .first();
        if (!group) throw unprocessable('quota.group: not a group of this organization');
        if (role === 'group_admin' && actor.adminGroups.get(group.id) !== organizationId) throw forbidden();
        const membership = await trx('group_members').where({ group_id: group.id, user_id: userId }).first();
        if (!membership) throw unprocessable('quota.group: the user is not in this group');
        const wanted = { cpu: input.quota.cpu, memory: input.quota.memory, disk: input.quota.disk };
        const usePercentage = input.quota.use_percentage ?? false;
        if (usePercentage) {
          assertWithin(wanted, { cpu: 100, memory: 100, disk: 100 }, 'quota', 'a percentage is at most 100');
        } else {
          const others = await trx('group_members')
            .where({ group_id: group.id, use_percentage: false })
            .whereNot({ user_id: userId });
          const left = quotaOf(group);
          for (const o of others) {
            left.cpu -= Number(o.quota_cpu);
            left.memory -= Number(o.quota_memory);
            left.disk -= Number(o.quota_disk);
          }
          assertWithin(
            wanted,
            { cpu: Math.max(0, left.cpu), memory: Math.max(0, left.memory), disk: Math.max(0, left.disk) },
            'quota',
            "exceeds what the group's quota leaves",
          );
        }
        await trx('group_members')
          .where({ group_id: group.id, user_id: userId })
          .update({
            quota_cpu: wanted.cpu,
            quota_memory: wanted.memory,
            quota_disk: wanted.disk,
            use_percentage: usePercentage,
            use_free: input.quota.use_free ?? membership.use_free,
          });
        if (input.uid !== undefined) {
          if (input.uid < FIRST_UID) throw unprocessable('uid: must be at least 1000');
          const taken = await trx('organization_members')
            .where({ organization_id: organizationId, uid: input.uid })
            .whereNot({ user_id: userId })
            .first();
          if (taken) throw conflict('uid: already used in this organization');
          await trx('organization_members')
            .where({ organization_id: organizationId, user_id: userId })
            .update({ uid: input.uid });
        }
        const user = await trx('users').where({ id: userId }).first('email');
        await events.record(
          actor,
          {
            kind: 'users',
            action: 'update',
            subject: user.email,
            organizationId,
            data: [{ quota: input.quota, uid: input.uid }],
          },
          trx,
        );
      });
      await notifications.notify({
        userId,
        organizationId,
        title: 'Quota',
        text: 'Your quota was updated',
        data: { action: 'quota', uuid: input.quota.group },
      });
    },

    async removeFromGroup(actor: Caller, userId: string, groupId: string) {
      const group = await db('groups').where({ id: groupId }).first();
      const removed = await db('group_members').where({ group_id: groupId, user_id: userId }).delete();
      if (!removed) throw notFound('Member');
      caches.wrote(db, 'group_members');
      await events.record(actor, {
        kind: 'groups',
        action: 'update',
        subject: group.name,
        organizationId: group.organization_id,
        data: [{ removed: userId }],
      });
    },

    async removeFromOrganization(actor: Caller, userId: string, organizationId: string) {
      await transaction(db, async (trx) => {
        const removed = await trx('organization_members')
          .where({ organization_id: organizationId, user_id: userId })
          .delete();
        if (!removed) throw notFound('Member');
        await trx('group_members')
          .where({ user_id: userId })
          .whereIn('group_id', trx('groups').where({ organization_id: organizationId }).select('id'))
          .delete();
        await events.record(actor, { kind: 'users', action: 'remove', subject: userId, organizationId }, trx);
      });
    },

    async deleteUser(actor: Caller, userId: string) {
      const user = await db('users').where({ id: userId }).first();
      if (!user) throw notFound('User');
      if (user.is_super_admin) throw forbidden('the super admin cannot be deleted');
      await db('users').where({ id: userId }).delete();
      caches.wrote(db, 'users');
      await events.record(actor, {
        kind: 'users',
        action: 'remove',
        subject: user.email,
        organizationId: null,
      });
    },

    /** POST /invite: one mailed link per address; existing accounts accept after signing in. */
    async invite(actor: Caller, organizationId: string, emails: string[], defaultGroup: string | undefined) {
      const org = await db('organizations').where({ id: organizationId }).first();
      if (!org) throw unprocessable('organization: unknown organization');
      if (
        defaultGroup &&
        !(await db('groups').where({ id: defaultGroup, organization_id: organizationId }).first())
      ) {
        throw unprocessable('default_group: not a group of this organization');
      }
      const invited = [];
      for (const email of emails) {
        const { token, hash } = newOpaqueToken();
        await db('invitations').insert({
          token_hash: hash,
          organization_id: organizationId,
          group_id: defaultGroup ?? null,
          email,
          invited_by: actor.userId,
          expires_at: new Date(Date.now() + config.invitationSeconds * 1000),
        });
        const hasAccount = await db('users').whereRaw('lower(email) = lower(?)', [email]).first('id');
        const link = `${config.publicUrl}/${hasAccount ? 'login' : 'signup'}?invite=${token}`;
        await mailer.send({
          to: email,
          subject: `Join ${org.name} on Sandflow`,
          text: `${actor.name || actor.email} invited you to ${org.name}.\n\n${link}\n`,
        });
        invited.push({ email });
      }
      await events.record(actor, {
        kind: 'users',
        action: 'create',
        subject: emails.join(' '),
        organizationId,
        data: [{ invited: emails }],
      });
      return invited;
    },

    /** A pending, unexpired invitation or null. */
    async findInvitation(token: string, conn: Knex = db) {
      const row = await conn('invitations')
        .join('organizations', 'organizations.id', 'invitations.organization_id')
        .where({ token_hash: hashToken(token) })
        .whereNull('accepted_at')
        .where('expires_at', '>', new Date())
        .first('invitations.*', 'organizations.name as organization_name');
      return row ?? null;
    },

    /** Joins the invited organization (and default group); the signed-in e-mail must be the invited one. */
    async acceptInvitation(
      user: { userId: string; email: string; name: string },
      token: string,
      trx: Knex = db,
    ) {
      const invitation = await this.findInvitation(token, trx);
      if (!invitation) throw notFound('Invitation');
      if (invitation.email.toLowerCase() !== user.email.toLowerCase())
        throw forbidden('this invitation is for another e-mail');
      await addOrganizationMember(trx, invitation.organization_id, user.userId, 'user');
      if (invitation.group_id) {
        await trx('group_members')
          .insert({ group_id: invitation.group_id, user_id: user.userId })
          .onConflict(['group_id', 'user_id'])
          .ignore();
      }
      await trx('invitations').where({ id: invitation.id }).update({ accepted_at: trx.fn.now() });
      caches.wrote(trx, 'organization_members', 'group_members');
      await events.record(
        user,
        {
          kind: 'users',
          action: 'create',
          subject: user.email,
          organizationId: invitation.organization_id,
          data: [{ accepted: true }],
        },
        trx,
      );
      return invitation.organization_id as string;
    },
  };
}

export type MemberService = ReturnType<typeof createMemberService>;
