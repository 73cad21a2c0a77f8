import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../test-support/harness.js';
import { createWorld, type World } from '../test-support/world.js';

let h: Harness;
let w: World;
beforeAll(async () => {
  h = await createHarness();
}, 60_000);
beforeEach(async () => {
  await h.reset();
  w = await createWorld(h.db);
});
afterAll(() => h.close());

const as = async (userId: string) => `Bearer ${await h.tokenFor(userId, w.a.org.id)}`;

describe('GET /admin/outbox', () => {
  it('shows the super admin the mails, newest first, filtered by recipient', async () => {
    await h.request.post('/api/v0/password').send({ username: w.a.user.email }).expect(200);
    await h.request.post('/api/v0/password').send({ username: w.b.user.email }).expect(200);
    const all = await h.request.get('/api/v0/admin/outbox').set('Authorization', await as(w.superAdmin.id));
    expect(all.status).toBe(200);
    expect(all.body.result.map((m: any) => m.to)).toEqual([w.b.user.email, w.a.user.email]);
    const one = await h.request
      .get('/api/v0/admin/outbox')
      .query({ to: w.a.user.email.toUpperCase() })
      .set('Authorization', await as(w.superAdmin.id));
    expect(one.body.result).toHaveLength(1);
    expect(one.body.result[0]).toMatchObject({
      to: w.a.user.email,
      text: expect.stringContaining('/password/'),
    });
  });

  it.each(['organization admin', 'member'] as const)(
    'is forbidden to an %s (it holds everybody’s links)',
    async (who) => {
      const user = who === 'member' ? w.a.user : w.a.orgAdmin;
      const res = await h.request.get('/api/v0/admin/outbox').set('Authorization', await as(user.id));
      expect(res.status).toBe(403);
    },
  );

  it('names a bad limit', async () => {
    const res = await h.request
      .get('/api/v0/admin/outbox?limit=0')
      .set('Authorization', await as(w.superAdmin.id));
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain('limit');
  });
});
