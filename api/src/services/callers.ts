import type { Knex } from 'knex';
import type { Role } from '../authorization.js';
import { callerCacheFor } from './read-caches.js';

/** The signed-in person and everything authorization needs, loaded once per request. */
export interface Caller {
  userId: string;
  email: string;
  name: string;
  isSuperAdmin: boolean;
  currentOrganizationId: string | null;
  /** organization id → organization_admin | user */
  memberships: Map<string, 'organization_admin' | 'user'>;
  /** group id → organization id, for the groups the caller administers */
  adminGroups: Map<string, string>;
}

/** The database's view of a person, as the caller cache keeps it. */
interface CallerRecord {
  id: string;
  email: string;
  name: string;
  isSuperAdmin: boolean;
  memberships: [string, 'organization_admin' | 'user'][];
  adminGroups: [string, string][];
  /** Access tokens issued before this second (epoch seconds) are revoked; null: none is. */
  tokensValidAfter: number | null;
}

async function fetchCallerRecord(db: Knex, userId: string): Promise<CallerRecord | null> {
  // One statement: it runs on every cache miss, and PGlite serves one statement at a time.
  const { rows } = await db.raw(
    `SELECT u.id, u.email, u.first_name, u.last_name, u.is_super_admin,
       floor(extract(epoch FROM u.tokens_valid_after)) AS tokens_valid_after,
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
  return {
    id: user.id,
    email: user.email,
    name: `${user.first_name} ${user.last_name}`.trim(),
    isSuperAdmin: user.is_super_admin,
    memberships: parseJson<[string, 'organization_admin' | 'user'][]>(user.memberships),
    adminGroups: parseJson<[string, string][]>(user.admin_groups),
    tokensValidAfter: user.tokens_valid_after == null ? null : Number(user.tokens_valid_after),
  };
}

/** Whether a token issued at `issuedAt` (epoch seconds; unknown: not checked) was revoked since. */
const revoked = (record: CallerRecord, issuedAt: number | undefined) =>
  issuedAt !== undefined && record.tokensValidAfter !== null && issuedAt < record.tokensValidAfter;

function toCaller(record: CallerRecord, organizationId: string | null): Caller {
  const memberOf = new Map(record.memberships);
  // A token minted before the caller left an organization must not keep it current.
  const current =
    organizationId && (memberOf.has(organizationId) || record.isSuperAdmin) ? organizationId : null;
  return {
    userId: record.id,
    email: record.email,
    name: record.name,
    isSuperAdmin: record.isSuperAdmin,
    currentOrganizationId: current ?? record.memberships[0]?.[0] ?? null,
    memberships: memberOf,
    adminGroups: new Map(record.adminGroups),
  };
}

/** The caller straight from the database. */
export async function loadCaller(
  db: Knex,
  userId: string,
  organizationId: string | null,
  issuedAt?: number,
): Promise<Caller | null> {
  const record = await fetchCallerRecord(db, userId);
  return record && !revoked(record, issuedAt) ? toCaller(record, organizationId) : null;
}

/**
 * The caller through the per-database caller cache (see caller-cache.ts): a write to the
 * person's rows, memberships or groups empties it, so a change of role or a removal applies
 * from the next request on.
 */
export async function loadCallerCached(
  db: Knex,
  userId: string,
  organizationId: string | null,
  issuedAt?: number,
): Promise<Caller | null> {
  const record = await callerCacheFor<CallerRecord>(db).get(userId, () => fetchCallerRecord(db, userId));
  return record && !revoked(record, issuedAt) ? toCaller(record, organizationId) : null;
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
