import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, destroyTestDatabase } from '../test-support/database.js';
import { createOrganization, createUser } from '../test-support/fixtures.js';
import { addOrganizationMember, FIRST_UID } from './tenancy-shared.js';

let db: Knex;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => destroyTestDatabase(db));

describe('addOrganizationMember', () => {
  // On PostgreSQL (CI's database pass) the transactions really overlap; PGlite runs them in turn.
  it('gives people joining at the same time distinct uids, from the first one up', async () => {
    const org = await createOrganization(db, { name: 'Concurrent Joiners' });
    const people = await Promise.all(Array.from({ length: 12 }, () => createUser(db)));
    await Promise.all(
      people.map((p) => db.transaction((trx) => addOrganizationMember(trx, org.id, p.id, 'user'))),
    );
    const uids = (await db('organization_members').where({ organization_id: org.id }).pluck('uid')).map(
      Number,
    );
    expect(uids.sort((a, b) => a - b)).toEqual(people.map((_, i) => FIRST_UID + i));
  });
});
