import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../db/database.js';
import { migrateKubeLite, rollbackKubeLite } from './migrate.js';

const db = await createTestDatabase();
afterAll(() => db.destroy());

describe('kube-lite migrations', () => {
  it('go up, down and up again', { timeout: 60_000 }, async () => {
    await migrateKubeLite(db);
    expect(await db.schema.hasTable('kube_objects')).toBe(true);
    await rollbackKubeLite(db);
    expect(await db.schema.hasTable('kube_objects')).toBe(false);
    expect(await db.schema.hasTable('kube_state')).toBe(false);
    await migrateKubeLite(db);
    expect(await db.schema.hasTable('kube_state')).toBe(true);
  });
});
