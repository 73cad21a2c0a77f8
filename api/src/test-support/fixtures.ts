import type { Knex } from 'knex';
import { hashPassword } from '../services/passwords.js';
import { addOrganizationMember, slugify } from '../services/tenancy-shared.js';

export const FIXTURE_PASSWORD = 'Sandflow-1';
// One argon2id hash shared by every fixture user: hashing is deliberately slow.
let passwordHash: Promise<string> | undefined;

let counter = 0;
const next = () => ++counter;

export interface UserFixture {
  id: string;
  email: string;
}

export async function createUser(
  db: Knex,
  overrides: { email?: string; verified?: boolean; is_super_admin?: boolean; first_name?: string } = {},
): Promise<UserFixture> {
  passwordHash ??= hashPassword(FIXTURE_PASSWORD);
  const n = next();
  const [row] = await db('users')
    .insert({
      email: overrides.email ?? `user${n}@example.test`,
      first_name: overrides.first_name ?? `First${n}`,
      last_name: `Last${n}`,
      password_hash: await passwordHash,
      verified: overrides.verified ?? true,
      is_super_admin: overrides.is_super_admin ?? false,
    })
    .returning(['id', 'email']);
  return row;
}

export interface OrganizationFixture {
  id: string;
  name: string;
  slug: string;
}

export async function createOrganization(
  db: Knex,
  overrides: { name?: string; quota?: { cpu: number; memory: number; disk: number } } = {},
): Promise<OrganizationFixture> {
  const name = overrides.name ?? `Org ${next()}`;
  const quota = overrides.quota ?? { cpu: 8000, memory: 16384, disk: 102400 };
  const [row] = await db('organizations')
    .insert({
      name,
      slug: slugify(name),
      quota_cpu: quota.cpu,
      quota_memory: quota.memory,
      quota_disk: quota.disk,
    })
    .returning(['id', 'name', 'slug']);
  return row;
}

export async function addMember(
  db: Knex,
  org: OrganizationFixture,
  user: UserFixture,
  role: 'organization_admin' | 'user' = 'user',
) {
  await addOrganizationMember(db, org.id, user.id, role);
}

export interface GroupFixture {
  id: string;
  name: string;
  slug: string;
  organization_id: string;
}

export async function createGroup(
  db: Knex,
  org: OrganizationFixture,
  overrides: {
    name?: string;
    quota?: { cpu: number; memory: number; disk: number };
    members?: UserFixture[];
    admins?: UserFixture[];
  } = {},
): Promise<GroupFixture> {
  const name = overrides.name ?? `Group ${next()}`;
  const quota = overrides.quota ?? { cpu: 1000, memory: 1024, disk: 1024 };
  const { max } = (await db('groups').where({ organization_id: org.id }).max('gid as max').first()) ?? {};
  const [row] = await db('groups')
    .insert({
      organization_id: org.id,
      name,
      slug: slugify(name),
      gid: Math.max(1000, Number(max ?? 999) + 1),
      quota_cpu: quota.cpu,
      quota_memory: quota.memory,
      quota_disk: quota.disk,
    })
    .returning(['id', 'name', 'slug', 'organization_id']);
  for (const user of overrides.members ?? []) {
    await addOrganizationMember(db, org.id, user.id, 'user');
    await db('group_members')
      .insert({ group_id: row.id, user_id: user.id })
      .onConflict(['group_id', 'user_id'])
      .ignore();
  }
  for (const user of overrides.admins ?? []) {
    await addOrganizationMember(db, org.id, user.id, 'user');
    await db('group_members')
      .insert({ group_id: row.id, user_id: user.id, is_admin: true })
      .onConflict(['group_id', 'user_id'])
      .merge(['is_admin']);
  }
  return row;
}
