import type { Knex } from 'knex';
import { unprocessable } from '../errors.js';
import type { Resources } from './kube-tenancy.js';

export const FIRST_UID = 1000;
export const FIRST_GID = 1000;
/** Keeps `sf-<org>-<group>` within the 63 characters of a namespace name. */
const SLUG_LENGTH = 20;

export function slugify(name: string): string {
  const slug = name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, SLUG_LENGTH)
    .replace(/-+$/, '');
  return slug || 'x';
}

/** A slug not yet in `taken`, suffixed -2, -3… when needed. */
export function uniqueSlug(name: string, taken: Set<string>): string {
  const base = slugify(name);
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base.slice(0, SLUG_LENGTH - String(n).length - 1)}-${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}

export const quotaOf = (row: Row): Resources => ({
  cpu: Number(row.quota_cpu),
  memory: Number(row.quota_memory),
  disk: Number(row.quota_disk),
});

export const quotaColumns = (quota: Resources) => ({
  quota_cpu: quota.cpu,
  quota_memory: quota.memory,
  quota_disk: quota.disk,
});

export const sumResources = (rows: Resources[]): Resources =>
  rows.reduce((a, b) => ({ cpu: a.cpu + b.cpu, memory: a.memory + b.memory, disk: a.disk + b.disk }), {
    cpu: 0,
    memory: 0,
    disk: 0,
  });

/** Throws a 422 naming the first resource of `wanted` above `limit`. */
export function assertWithin(wanted: Resources, limit: Resources, field: string, why: string): void {
  for (const key of ['cpu', 'memory', 'disk'] as const) {
    if (wanted[key] > limit[key] + 1e-9) throw unprocessable(`${field}.${key}: ${why}`, 'quota_exceeded');
  }
}

/** Adds (or re-roles) a member, giving them the organization's next free UID. */
export async function addOrganizationMember(
  trx: Knex,
  organizationId: string,
  userId: string,
  role: 'organization_admin' | 'user',
): Promise<void> {
  const existing = await trx('organization_members')
    .where({ organization_id: organizationId, user_id: userId })
    .first();
  if (existing) {
    if (role === 'organization_admin' && existing.role !== role) {
      await trx('organization_members')
        .where({ organization_id: organizationId, user_id: userId })
        .update({ role });
    }
    return;
  }
  // Two people joining at once (invitations accepted together) would both take max(uid) + 1 and the
  // second insert would break the unique (organization, uid): the organization row is the lock.
  await trx('organizations').where({ id: organizationId }).forUpdate().first('id');
  const { max } =
    (await trx('organization_members')
      .where({ organization_id: organizationId })
      .max('uid as max')
      .first()) ?? {};
  const uid = Math.max(FIRST_UID, Number(max ?? FIRST_UID - 1) + 1);
  await trx('organization_members').insert({ organization_id: organizationId, user_id: userId, role, uid });
}

/** Resolves a list of user ids or e-mails to user ids; an unknown entry is a 422 naming the field. */
export async function resolveUsers(db: Knex, entries: string[], field: string): Promise<string[]> {
  const ids: string[] = [];
  for (const entry of entries) {
    const isUuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(entry);
    const user = isUuid
      ? await db('users').where({ id: entry }).first('id')
      : await db('users').whereRaw('lower(email) = lower(?)', [entry]).first('id');
    if (!user) throw unprocessable(`${field}: unknown user ${entry}`);
    ids.push(user.id);
  }
  return [...new Set(ids)];
}

/** A database row as knex returns it (the API does not declare table types). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- knex rows are untyped
export type Row = Record<string, any>;
