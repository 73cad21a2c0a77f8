import { describe, expect, it } from 'vitest';
import { API_MIGRATIONS_TABLE, migrateApi, rollbackApi } from './migrate.js';
import { createTestDatabase, destroyTestDatabase } from './test-support/database.js';

describe('API migrations', () => {
  it('go up, down and up again, keeping their own migration table', async () => {
    const db = await createTestDatabase(); // migrated
    try {
      expect(await db.schema.hasTable('users')).toBe(true);
      expect(await db.schema.hasTable(API_MIGRATIONS_TABLE)).toBe(true);
      // knex's default table is left to others (kube-lite keeps its own tables here too).
      expect(await db.schema.hasTable('knex_migrations')).toBe(false);
      await rollbackApi(db);
      for (const table of ['users', 'organizations', 'events', 'notifications', 'outbox']) {
        expect(await db.schema.hasTable(table)).toBe(false);
      }
      await migrateApi(db);
      await migrateApi(db); // idempotent
      expect(await db.schema.hasTable('notifications')).toBe(true);
    } finally {
      await destroyTestDatabase(db);
    }
  }, 30_000);
});
