import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FIXTURE_PASSWORD, createUser } from '../test-support/fixtures.js';
import {
  createHarness,
  lastMailTo,
  recordingKube,
  tokenInMail,
  type Harness,
} from '../test-support/harness.js';
import { createWorld, type World } from '../test-support/world.js';

const kube = recordingKube();
let capacity: { cpu: number; memory: number; disk: number } | null = null;
let h: Harness;
let w: World;
beforeAll(async () => {
  h = await createHarness({ kube, clusterCapacity: async () => capacity });
}, 60_000);
beforeEach(async () => {
  await h.reset();
  kube.calls.length = 0;
  capacity = null;
  w = await createWorld(h.db);
});
afterAll(() => h.close());

const as = async (userId: string, orgId: string | null = w.a.org.id) =>
  `Bearer ${await h.tokenFor(userId, orgId)}`;

describe('organizations', () => {
  it('creates one with its namespace; the creator becomes its admin with UID 1000', async () => {
    const res = await h.request
      .post('/api/v0/organizations')
      .set('Authorization', await as(w.superAdmin.id))
      .send({ name: 'Gamma Lab', quota: { cpu: 4000, memory: 8192, disk: 10240 }, admins: [w.a.user.email] });
    expect(res.status).toBe(201);
    expect(res.body.result).toMatchObject({
      name: 'Gamma Lab',
      slug: 'gamma-lab',
      quota: { cpu: 4000, memory: 8192, disk: 10240 },
    });
    expect(res.body.result.admins.sort()).toEqual([w.superAdmin.id, w.a.user.id].sort());
    expect(kube.calls).toEqual(['org gamma-lab']);
    const uids = await h
      .db('organization_members')
      .where({ organization_id: res.body.result.id })
      .pluck('uid');
    expect(uids.sort()).toEqual([1000, 1001]);
  });

  it('caps quotas by the free cluster capacity (spec 3 §5)', async () => {
    // Alpha and Beta hold 8000m each already.
    capacity = { cpu: 20_000, memory: 1_000_000, disk: 1_000_000 };
    const auth = await as(w.superAdmin.id);
    const tooMuch = await h.request
      .post('/api/v0/organizations')
      .set('Authorization', auth)
      .send({ name: 'Big', quota: { cpu: 4001, memory: 0, disk: 0 } });
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.body.error).toEqual({
      code: 'quota_exceeded',
      message: 'quota.cpu: at most 4 cores are free',
    });
    expect(await h.db('organizations').where({ name: 'Big' }).first()).toBeUndefined();
    const fits = await h.request
      .post('/api/v0/organizations')
      .set('Authorization', auth)
      .send({ name: 'Fits', quota: { cpu: 4000, memory: 0, disk: 0 } });
    expect(fits.status).toBe(201);
    // Editing, the maximum is what is free (now nothing) plus the organization's own quota.
    const grow = await h.request
      .put(`/api/v0/organizations/${w.a.org.id}`)
      .set('Authorization', auth)
      .send({ quota: { cpu: 8500, memory: 16384, disk: 102400 } });
    expect(grow.status).toBe(422);
    expect(grow.body.error.message).toBe(
      'quota.cpu: at most 8 cores (the free cluster capacity plus its current quota)',
    );
    const same = await h.request
      .put(`/api/v0/organizations/${w.a.org.id}`)
      .set('Authorization', auth)
      .send({ quota: { cpu: 8000, memory: 16384, disk: 102400 } });
    expect(same.status).toBe(200);
  });

  it('answers the free capacity (GET /organizations/capacity)', async () => {
    const auth = await as(w.superAdmin.id);
    const unknown = await h.request.get('/api/v0/organizations/capacity').set('Authorization', auth);
    expect(unknown.body.result).toEqual({
      total: null,
      clusters: null,
      allocated: { cpu: 16_000, memory: 32_768, disk: 204_800 },
      free: null,
    });
    capacity = { cpu: 20_999, memory: 40_000, disk: 300_000 };
    const known = await h.request.get('/api/v0/organizations/capacity').set('Authorization', auth);
    expect(known.body.result).toMatchObject({
      total: capacity,
      free: { cpu: 4500, memory: 7168, disk: 95_129.6 },
    });
  });

  it('refuses to shrink an organization below what its groups hold', async () => {
    const res = await h.request
      .put(`/api/v0/organizations/${w.a.org.id}`)
      .set('Authorization', await as(w.superAdmin.id))
      .send({ quota: { cpu: 500, memory: 100000, disk: 100000 } });
    expect(res.status).toBe(422);
    expect(res.body.error.message).toBe('quota.cpu: below the quota already given to its groups');
  });

  it('lets an organization admin rename but not change the quota', async () => {
    const auth = await as(w.a.orgAdmin.id);
    expect(
      (
        await h.request
          .put(`/api/v0/organizations/${w.a.org.id}`)
          .set('Authorization', auth)
          .send({ name: 'Alpha 2' })
      ).status,
    ).toBe(200);
    const quota = await h.request
      .put(`/api/v0/organizations/${w.a.org.id}`)
      .set('Authorization', auth)
      .send({ quota: { cpu: 1, memory: 1, disk: 1 } });
    expect(quota.status).toBe(403);
    expect(quota.body.error.message).toBe('quota: only the super admin may change it');
  });

  it.each([
    [false, ['orgAdmin', 'groupAdmin', 'user', 'target']],
    [true, []],
  ])('deletes an organization (purge %s) with its groups and namespaces', async (purge, survivors) => {
    const res = await h.request
      .delete(`/api/v0/organizations/${w.a.org.id}?purge=${purge}`)
      .set('Authorization', await as(w.superAdmin.id));
    expect(res.status).toBe(200);
    expect(kube.calls).toEqual(['delete org alpha']);
    expect(await h.db('groups').where({ organization_id: w.a.org.id })).toEqual([]);
    const left = await h
      .db('users')
      .whereIn('id', [w.a.orgAdmin.id, w.a.groupAdmin.id, w.a.user.id, w.a.target.id])
      .pluck('id');
    expect(left.length).toBe(survivors.length);
    // Beta is untouched.
    expect(await h.db('users').where({ id: w.b.user.id }).first()).toBeTruthy();
  });

  it('normalizes mount points (spec 3 §5)', async () => {
    const res = await h.request
      .put(`/api/v0/organizations/${w.a.org.id}/mount`)
      .set('Authorization', await as(w.a.orgAdmin.id))
      .type('form')
      .send('mount_points[]=data//set&mount_points[]=&mount_points[]=/mnt/x&safe_mount=true');
    expect(res.body.result.mount_points).toEqual(['/mnt/data/set', '/mnt/x']);
  });
});

describe('when Kubernetes refuses', () => {
  it('answers 503 and keeps nothing of a new group', async () => {
    const failing = await createHarness({
      kube: {
        ...recordingKube(),
        async syncGroup() {
          throw new Error('connection refused');
        },
      },
    });
    try {
      const world = await createWorld(failing.db);
      const res = await failing.request
        .post('/api/v0/group')
        .set('Authorization', `Bearer ${await failing.tokenFor(world.a.orgAdmin.id, world.a.org.id)}`)
        .send({ name: 'Doomed' });
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('kubernetes_unavailable');
      expect(await failing.db('groups').where({ name: 'Doomed' })).toEqual([]);
    } finally {
      await failing.close();
    }
  }, 30_000);
});

describe('groups', () => {
  it('creates a group with a ResourceQuota, GID from 1000, within the organization quota', async () => {
    const auth = await as(w.a.orgAdmin.id);
    const res = await h.request
      .post('/api/v0/group')
      .set('Authorization', auth)
      .send({
        name: 'Data Science',
        quota: { cpu: 2000, memory: 2048, disk: 4096 },
        members: [w.a.user.id],
        admins: [w.a.orgAdmin.email],
      });
    expect(res.status).toBe(201);
    expect(res.body.result).toMatchObject({
      name: 'Data Science',
      gid: 1001,
      quota: { cpu: 2000, memory: 2048, disk: 4096 },
    });
    expect(kube.calls).toEqual(['group alpha-data-science 2000/2048/4096']);

    // Alpha: 8000m, the existing group 1000m, this one 2000m: 5000m are left.
    const over = await h.request
      .post('/api/v0/group')
      .set('Authorization', auth)
      .send({ name: 'Too big', quota: { cpu: 5001, memory: 1, disk: 1 } });
    expect(over.status).toBe(422);
    expect(over.body.error.message).toBe('quota.cpu: exceeds the organization quota');
  });

  it('updates the ResourceQuota on a quota change and deletes the namespace with the group', async () => {
    const auth = await as(w.a.orgAdmin.id);
    await h.request
      .put(`/api/v0/group/${w.a.group.id}`)
      .set('Authorization', auth)
      .send({ quota: { cpu: 1500, memory: 1024, disk: 1024 } })
      .expect(200);
    await h.request.delete(`/api/v0/group/${w.a.group.id}`).set('Authorization', auth).expect(200);
    expect(kube.calls).toEqual([
      `group alpha-${w.a.group.slug} 1500/1024/1024`,
      `delete group alpha-${w.a.group.slug}`,
    ]);
  });

  it('refuses a GID below 1000 naming the field', async () => {
    const res = await h.request
      .put(`/api/v0/group/${w.a.group.id}`)
      .set('Authorization', await as(w.a.orgAdmin.id))
      .send({ gid: 999 });
    expect(res.status).toBe(422);
    expect(res.body.error.message).toBe('gid: invalid gid: must be at least 1000');
  });
});

describe('members and quotas', () => {
  it.each([
    ['a fixed quota within what is left', { cpu: 1000, memory: 1024, disk: 1024 }, false, 200],
    ['a fixed quota above the group', { cpu: 1001, memory: 1, disk: 1 }, false, 422],
    ['a percentage', { cpu: 50, memory: 100, disk: 25 }, true, 200],
    ['a percentage above 100', { cpu: 101, memory: 1, disk: 1 }, true, 422],
  ])('sets %s', async (_case, quota, usePercentage, status) => {
    const res = await h.request
      .put(`/api/v0/user/${w.a.target.id}/quota`)
      .set('Authorization', await as(w.a.groupAdmin.id))
      .send({ quota: { group: w.a.group.id, ...quota, use_percentage: usePercentage } });
    expect(res.status).toBe(status);
  });

  it('keeps UIDs unique in an organization', async () => {
    const auth = await as(w.a.orgAdmin.id);
    const taken = await h
      .db('organization_members')
      .where({ organization_id: w.a.org.id, user_id: w.a.user.id })
      .first('uid');
    const res = await h.request
      .put(`/api/v0/user/${w.a.target.id}/quota`)
      .set('Authorization', auth)
      .send({ quota: { group: w.a.group.id, cpu: 0, memory: 0, disk: 0 }, uid: taken.uid });
    expect(res.status).toBe(409);
  });

  it('invites by e-mail; the invited person registers through the link and lands in the group', async () => {
    await h.request
      .post('/api/v0/invite')
      .set('Authorization', await as(w.a.orgAdmin.id))
      .send({ users: 'grace@example.test', default_group: w.a.group.id })
      .expect(201);
    const token = tokenInMail((await lastMailTo(h.db, 'grace@example.test')).text);
    expect((await h.request.get(`/api/v0/invite/${token}`)).body.result).toEqual({
      organization: 'Alpha',
      user: 'grace@example.test',
    });
    await h.request
      .post('/api/v0/user')
      .send({
        first_name: 'Grace',
        last_name: 'Hopper',
        email: 'grace@example.test',
        password: 'Cobol-1959',
        use_invitation: true,
        invitation_link: token,
      })
      .expect(200);
    const grace = await h.db('users').where({ email: 'grace@example.test' }).first();
    expect(
      await h.db('group_members').where({ user_id: grace.id, group_id: w.a.group.id }).first(),
    ).toBeTruthy();
    // Used once.
    expect((await h.request.get(`/api/v0/invite/${token}`)).body.result).toBeNull();
  });

  it('lets an existing account accept an invitation after signing in, but only for its own e-mail', async () => {
    const outsider = await createUser(h.db);
    await h.request
      .post('/api/v0/invite')
      .set('Authorization', await as(w.a.orgAdmin.id))
      .send({ users: [outsider.email] });
    const token = tokenInMail((await lastMailTo(h.db, outsider.email)).text);
    expect(
      (
        await h.request
          .get(`/api/v0/invite/${token}/accept`)
          .set('Authorization', await as(w.b.user.id, w.b.org.id))
      ).status,
    ).toBe(403);
    const login = await h.request
      .post('/api/v0/login')
      .send({ username: outsider.email, password: FIXTURE_PASSWORD, invitation_link: token });
    expect(login.status).toBe(200);
    const me = await h.request
      .get('/api/v0/me')
      .set('Authorization', `Bearer ${login.body.result.access_token}`);
    expect(me.body.result.organizations.map((o: { name: string }) => o.name)).toEqual(['Alpha']);
  });

  it('switches the current organization with fresh tokens', async () => {
    const both = await createUser(h.db);
    await h.db('organization_members').insert([
      { organization_id: w.a.org.id, user_id: both.id, role: 'user', uid: 3000 },
      { organization_id: w.b.org.id, user_id: both.id, role: 'organization_admin', uid: 3000 },
    ]);
    const res = await h.request
      .post('/api/v0/preferences/organization')
      .set('Authorization', await as(both.id))
      .type('form')
      .send({ name: 'Beta' });
    expect(res.status).toBe(200);
    const me = await h.request
      .get('/api/v0/me')
      .set('Authorization', `Bearer ${res.body.result.access_token}`);
    expect(me.body.result).toMatchObject({ current_organization: w.b.org.id, role: 'organization_admin' });
  });

  it("names the super admin's current organization in /me even when they are not a member of it", async () => {
    const me = await h.request.get('/api/v0/me').set('Authorization', await as(w.superAdmin.id, w.b.org.id));
    expect(me.status).toBe(200);
    expect(me.body.result.current_organization).toBe(w.b.org.id);
    expect(me.body.result.organizations).toContainEqual({ id: w.b.org.id, name: 'Beta', role: 'admin' });
  });
});

describe('tenant isolation', () => {
  it('never shows anything of organization A to a member of B only', async () => {
    // Activity in A: events and a notification.
    await h.request
      .put(`/api/v0/group/${w.a.group.id}`)
      .set('Authorization', await as(w.a.orgAdmin.id))
      .send({ members: [w.a.user.id, w.a.target.id] });
    await h.request
      .put(`/api/v0/user/${w.a.target.id}/quota`)
      .set('Authorization', await as(w.a.orgAdmin.id))
      .send({ quota: { group: w.a.group.id, cpu: 1, memory: 1, disk: 1 } });
    const secrets = [
      w.a.org.id,
      w.a.group.id,
      w.a.orgAdmin.id,
      w.a.user.id,
      w.a.target.id,
      w.a.target.email,
      'Alpha',
    ];
    for (const caller of [w.b.orgAdmin, w.b.groupAdmin, w.b.user]) {
      const auth = await as(caller.id, w.b.org.id);
      for (const path of [
        '/me',
        '/organization',
        '/organizations',
        '/group',
        '/group/name',
        '/admin/username',
        '/admin/group/users',
        '/admin/users/organization',
        '/illumina/events?page=0',
        '/notifications/new',
      ]) {
        const res = await h.request.get(`/api/v0${path}`).set('Authorization', auth);
        const text = JSON.stringify(res.body);
        for (const secret of secrets) expect(text, `${path} leaks ${secret}`).not.toContain(secret);
      }
    }
  });
});
