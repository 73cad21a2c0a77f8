import type { Knex } from 'knex';
import {
  addMember,
  createGroup,
  createOrganization,
  createUser,
  type GroupFixture,
  type OrganizationFixture,
  type UserFixture,
} from './fixtures.js';

/** A 1×1 PNG. */
export const PNG_BYTES = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

export interface Tenant {
  org: OrganizationFixture;
  group: GroupFixture;
  orgAdmin: UserFixture;
  groupAdmin: UserFixture;
  user: UserFixture;
  /** A plain member of `group`, with an avatar: the target of user routes. */
  target: UserFixture;
}

/** Two organizations, each with one of every role, and a super admin. */
export interface World {
  superAdmin: UserFixture;
  a: Tenant;
  b: Tenant;
}

async function createTenant(db: Knex, name: string): Promise<Tenant> {
  const org = await createOrganization(db, { name });
  const [orgAdmin, groupAdmin, user, target] = [
    await createUser(db),
    await createUser(db),
    await createUser(db),
    await createUser(db),
  ] as const;
  await addMember(db, org, orgAdmin, 'organization_admin');
  const group = await createGroup(db, org, {
    name: `${name} team`,
    members: [user, target],
    admins: [groupAdmin],
  });
  await db('users').where({ id: target.id }).update({ avatar: PNG_BYTES, avatar_type: 'image/png' });
  return { org, group, orgAdmin, groupAdmin, user, target };
}

export async function createWorld(db: Knex): Promise<World> {
  return {
    superAdmin: await createUser(db, { is_super_admin: true }),
    a: await createTenant(db, 'Alpha'),
    b: await createTenant(db, 'Beta'),
  };
}
