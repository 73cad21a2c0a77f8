import type { Knex } from 'knex';
import type { Role } from '../authorization.js';

/** The signed-in person and everything authorization needs, loaded once per request. */
export interface Caller {
  userId: string;
  email: string;
  name: string;
  isSuperAdmin: boolean;
  currentOrganizationId: string | null;
  /** organization id → organization_admin | user */
  memberships: Map<string, string>;
  /** group id → organization id, for the groups the caller administers */
  adminGroups: Map<string, string>;
}

export async function loadCaller(
  db: Knex,
  userId: string,
  organizationId: string | null,
): Promise<Caller | null> {
  const user = await db('users')
    .where({ id: userId })
    .first('id', 'email', 'first_name', 'last_name', 'is_super_admin');
  if (!user) return null;
  const [memberships, adminGroups] = await Promise.all([
    db('organization_members').where({ user_id: userId }).select('organization_id', 'role'),
    db('group_members')
      .join('groups', 'groups.id', 'group_members.group_id')
      .where({ 'group_members.user_id': userId, 'group_members.is_admin': true })
      .select('groups.id', 'groups.organization_id'),
  ]);
  const memberOf = new Map<string, string>(memberships.map((m) => [m.organization_id, m.role]));
  // A token minted before the caller left an organization must not keep it current.
  const current =
    organizationId && (memberOf.has(organizationId) || user.is_super_admin) ? organizationId : null;
  return {
    userId: user.id,
    email: user.email,
    name: `${user.first_name} ${user.last_name}`.trim(),
    isSuperAdmin: user.is_super_admin,
    currentOrganizationId: current ?? memberships[0]?.organization_id ?? null,
    memberships: memberOf,
    adminGroups: new Map(adminGroups.map((g) => [g.id, g.organization_id])),
  };
}

/**
 * The caller's role in an organization (null: not a member). In a group-scoped check
 * group_admin counts only for the groups they administer.
 */
export function roleIn(caller: Caller, organizationId: string | null, groupId?: string): Role | null {
  if (caller.isSuperAdmin) return 'admin';
  if (!organizationId) return null;
  const membership = caller.memberships.get(organizationId);
  if (!membership) return null;
  if (membership === 'organization_admin') return 'organization_admin';
  const adminsGroup = groupId
    ? caller.adminGroups.get(groupId) === organizationId
    : [...caller.adminGroups.values()].includes(organizationId);
  return adminsGroup ? 'group_admin' : 'user';
}

/** The role shown to the person (GET /me) and used by unscoped routes. */
export function currentRole(caller: Caller): Role {
  return roleIn(caller, caller.currentOrganizationId) ?? 'user';
}
