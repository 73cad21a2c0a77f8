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
  // One statement: it runs on every request, and PGlite serves one statement at a time.
  const { rows } = await db.raw(
    `SELECT u.id, u.email, u.first_name, u.last_name, u.is_super_admin,
       COALESCE((SELECT json_agg(json_build_array(m.organization_id, m.role) ORDER BY m.organization_id)
                 FROM organization_members m WHERE m.user_id = u.id), '[]') AS memberships,
       COALESCE((SELECT json_agg(json_build_array(g.id, g.organization_id))
                 FROM group_members gm JOIN groups g ON g.id = gm.group_id
                 WHERE gm.user_id = u.id AND gm.is_admin), '[]') AS admin_groups
     FROM users u WHERE u.id = ?`,
    [userId],
  );
  const user = rows[0];
  if (!user) return null;
  const memberships = parseJson<[string, string][]>(user.memberships);
  const memberOf = new Map<string, string>(memberships);
  // A token minted before the caller left an organization must not keep it current.
  const current =
    organizationId && (memberOf.has(organizationId) || user.is_super_admin) ? organizationId : null;
  return {
    userId: user.id,
    email: user.email,
    name: `${user.first_name} ${user.last_name}`.trim(),
    isSuperAdmin: user.is_super_admin,
    currentOrganizationId: current ?? memberships[0]?.[0] ?? null,
    memberships: memberOf,
    adminGroups: new Map(parseJson<[string, string][]>(user.admin_groups)),
  };
}

/** json columns arrive parsed from pg and as text from some drivers. */
const parseJson = <T>(value: unknown): T => (typeof value === 'string' ? JSON.parse(value) : value) as T;

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
