import type { Knex } from 'knex';
import type { Caller } from '../services/callers.js';
import { roleIn } from '../services/callers.js';
import { callerCacheFor } from '../services/read-caches.js';
import type { AccessSubject } from './types.js';

/**
 * What a caller may do with one object. `own` covers the owner-only actions of spec 1 §6
 * (rename, variables, delete, visibility); view/edit/use are the permissions read/write/execute.
 */
export interface Access {
  view: boolean;
  edit: boolean;
  use: boolean;
  own: boolean;
}

export type Need = keyof Access;

/** Who the caller is inside one organization: the facts every object check needs, loaded once. */
export interface Viewer {
  userId: string;
  organizationId: string;
  /** Super admin or organization admin of this organization. */
  admin: boolean;
  groups: ReadonlySet<string>;
  /** Whether an owner id names a user (objects applied with kubectl may name anyone). */
  isUser(owner: string | undefined): boolean;
  /** Display names of the owners asked about that name users. */
  names: ReadonlyMap<string, string>;
}

const NOTHING: Access = { view: false, edit: false, use: false, own: false };
const EVERYTHING: Access = { view: true, edit: true, use: true, own: true };

/**
 * The one rule for objects (spec 1 §6, issue 13 §1): the owner may do everything; group
 * permissions grant read/write/execute to the group's members (`_public` to every member of
 * the organization), write implying read; a public visibility lets every member view it.
 * An object whose owner names no user is visible per its visibility and permissions and
 * editable — owner actions included — by the organization's administrators only. Callers
 * outside the organization never reach this: its objects are not found for them (404).
 */
export function accessOf(viewer: Viewer, subject: AccessSubject): Access {
  if (subject.owner && subject.owner === viewer.userId) return EVERYTHING;
  if (viewer.admin && !viewer.isUser(subject.owner)) return EVERYTHING;
  // Called for every object of a list: plain loops, no closures.
  let view = subject.visibility.type === 'public';
  let edit = false;
  let use = false;
  for (const group in subject.permissions) {
    if (group !== '_public' && !viewer.groups.has(group)) continue;
    const p = subject.permissions[group]!;
    if (p.read || p.write) view = true;
    if (p.write) edit = true;
    if (p.execute) use = true;
  }
  // Using it needs an execute permission, as the operator checks when it validates a workflow.
  // Edit without view cannot happen (write implies read); use alone does not let one see it.
  if (!view) return use ? USE_ONLY : NOTHING;
  return { view, edit, use, own: false };
}

const USE_ONLY: Access = { view: false, edit: false, use: true, own: false };

/**
 * The caller as a viewer of one organization's objects. Their groups there and the owners' names
 * come through the caller cache (services/read-caches.ts), which every write to users,
 * memberships or groups empties: a list of thousands of objects costs no statement when warm.
 */
export async function viewerOf(
  db: Knex,
  caller: Caller,
  organizationId: string,
  owners: Iterable<string | undefined>,
): Promise<Viewer> {
  const role = roleIn(caller, organizationId);
  const cache = callerCacheFor<string[]>(db);
  const [groups, users] = await Promise.all([
    cache.get(`groups:${caller.userId}:${organizationId}`, () =>
      db('group_members')
        .join('groups', 'groups.id', 'group_members.group_id')
        .where({ 'group_members.user_id': caller.userId, 'groups.organization_id': organizationId })
        .pluck('groups.id'),
    ),
    existingUsers(db, owners),
  ]);
  return {
    userId: caller.userId,
    organizationId,
    admin: role === 'admin' || role === 'organization_admin',
    groups: new Set(groups ?? []),
    isUser: (owner) => !!owner && users.has(owner),
    names: users,
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Display names of the owners that name users (ids that are not uuids name nobody), through the
 * caller cache; the misses of one call are read with one statement.
 */
export async function existingUsers(
  db: Knex,
  owners: Iterable<string | undefined>,
): Promise<Map<string, string>> {
  const ids = [...new Set(owners)].filter((o): o is string => !!o && UUID.test(o));
  const cache = callerCacheFor<{ name: string | null }>(db);
  const missing: string[] = [];
  let batch: Promise<Map<string, string>> | undefined;
  const load = () =>
    (batch ??= Promise.resolve().then(async () => {
      const rows: { id: string; first_name: string; last_name: string }[] = await db('users')
        .whereIn('id', missing)
        .select('id', 'first_name', 'last_name');
      return new Map(rows.map((r) => [r.id, `${r.first_name} ${r.last_name}`.trim()]));
    }));
  const names = await Promise.all(
    ids.map((id) =>
      cache.get(`user-name:${id}`, () => {
        missing.push(id);
        return load().then((found) => ({ name: found.get(id) ?? null }));
      }),
    ),
  );
  const out = new Map<string, string>();
  ids.forEach((id, i) => {
    const name = names[i]?.name;
    if (name !== null && name !== undefined) out.set(id, name);
  });
  return out;
}
