import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createUser } from '../test-support/fixtures.js';
import { createHarness, type Harness } from '../test-support/harness.js';
import { PNG_BYTES, createWorld, type World } from '../test-support/world.js';

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

type Send = {
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
  body?: unknown;
  raw?: string;
  type?: string;
  /** Who sends it (default: the organization admin of `a`); null: nobody signed in. */
  as?: (w: World) => { id: string; org?: string } | null;
};

/** Each bad request answers a 4xx naming what is wrong, and changes nothing. */
const BAD: [string, (w: World) => Send, number, string][] = [
  [
    'malformed JSON',
    () => ({ method: 'put', path: '/tags', raw: '{"color": ', type: 'application/json' }),
    400,
    'body:',
  ],
  [
    'a wrong field type',
    () => ({ method: 'put', path: '/tags', body: { color: 12, label: 'x' } }),
    422,
    'color',
  ],
  [
    'a bad colour',
    () => ({ method: 'put', path: '/tags', body: { color: '#12', label: 'x' } }),
    422,
    'color: Enter a valid color',
  ],
  [
    'an empty label',
    () => ({ method: 'put', path: '/tags', body: { color: '#123456', label: ' ' } }),
    422,
    'label: Enter a valid tag label',
  ],
  ['a missing field', () => ({ method: 'post', path: '/feedback', body: { subject: 's' } }), 422, 'content'],
  [
    'an oversized body',
    () => ({ method: 'post', path: '/feedback', body: { subject: 's', content: 'x'.repeat(20_000) } }),
    413,
    'body: too large',
  ],
  [
    'a bad id',
    () => ({ method: 'put', path: '/group/not-a-uuid', body: { name: 'x' } }),
    400,
    'id: must be a uuid',
  ],
  [
    'an unknown id',
    () => ({ method: 'put', path: '/group/00000000-0000-4000-8000-000000000000', body: { name: 'x' } }),
    404,
    'not found',
  ],
  [
    'an unknown field',
    (w) => ({ method: 'put', path: `/group/${w.a.group.id}`, body: { name: 'x', colour: 'red' } }),
    422,
    'colour',
  ],
  [
    'a negative quota',
    () => ({ method: 'post', path: '/group', body: { name: 'x', quota: { cpu: -1, memory: 0, disk: 0 } } }),
    422,
    'quota.cpu: must be at least 0',
  ],
  [
    'a quota as text',
    () => ({
      method: 'post',
      path: '/group',
      body: { name: 'x', quota: { cpu: 'lots', memory: 0, disk: 0 } },
    }),
    422,
    'quota.cpu',
  ],
  [
    'an unknown algorithm',
    (w) => ({ method: 'put', path: `/organizations/${w.a.org.id}/algorithm`, body: { algorithm: 'random' } }),
    422,
    'algorithm',
  ],
  [
    'a bad e-mail in an invitation',
    () => ({ method: 'post', path: '/invite', body: { users: 'not-an-email' } }),
    422,
    'users.0: must be an e-mail address',
  ],
  [
    'a negative events page',
    () => ({ method: 'get', path: '/illumina/events?page=-1' }),
    400,
    'page: must be at least 0',
  ],
  ['a text events page', () => ({ method: 'get', path: '/illumina/events?page=abc' }), 400, 'page'],
  [
    'a text avatar',
    (w) => ({ method: 'put', path: `/user/${w.a.orgAdmin.id}/avatar`, raw: 'hello', type: 'image/png' }),
    422,
    'file_body: only png and jpeg images',
  ],
  [
    'a gif avatar named png',
    (w) => ({
      method: 'put',
      path: `/user/${w.a.orgAdmin.id}/avatar`,
      body: {
        file_name: 'a.png',
        file_body: Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;').toString('base64'),
      },
    }),
    422,
    'only png and jpeg',
  ],
  [
    'an oversized avatar',
    (w) => ({
      method: 'put',
      path: `/user/${w.a.orgAdmin.id}/avatar`,
      raw: Buffer.concat([PNG_BYTES, Buffer.alloc(600_000)]).toString('latin1'),
      type: 'image/png',
    }),
    422,
    'larger than',
  ],
];

const NUL = 'a\u0000b';
const LONE_SURROGATE = 'a\uD800b';
const superAdmin = (w: World) => ({ id: w.superAdmin.id });
const nobody = () => null;

/**
 * Strings the database cannot hold (PostgreSQL refuses NUL; a lone surrogate is not UTF-8),
 * one row per route and field: a 422 (400 for the query and path) naming the field, never a
 * 500 from the driver.
 */
const UNSTORABLE: [string, string, number, string, (w: World) => Send][] = [
  [
    'organization switch',
    'name',
    422,
    'name: must not contain NUL',
    () => ({ method: 'post', path: '/preferences/organization', body: { name: NUL } }),
  ],
  [
    'organization switch',
    'name',
    422,
    'name: must not contain lone surrogates',
    () => ({ method: 'post', path: '/preferences/organization', body: { name: LONE_SURROGATE } }),
  ],
  [
    'tags',
    'label',
    422,
    'label: must not contain NUL',
    () => ({ method: 'put', path: '/tags', body: { color: '#123456', label: NUL } }),
  ],
  [
    'contacts',
    'contacts.0.phone',
    422,
    'contacts.0.phone: must not contain lone',
    () => ({ method: 'put', path: '/contact', body: { contacts: [{ phone: LONE_SURROGATE }] } }),
  ],
  [
    'feedback',
    'content',
    422,
    'content: must not contain NUL',
    () => ({ method: 'post', path: '/feedback', body: { subject: 's', content: NUL } }),
  ],
  [
    'new group',
    'name',
    422,
    'name: must not contain NUL',
    () => ({ method: 'post', path: '/group', body: { name: NUL, quota: { cpu: 0, memory: 0, disk: 0 } } }),
  ],
  [
    'group update',
    'name',
    422,
    'name: must not contain lone',
    (w) => ({ method: 'put', path: `/group/${w.a.group.id}`, body: { name: LONE_SURROGATE } }),
  ],
  [
    'new organization',
    'name',
    422,
    'name: must not contain NUL',
    () => ({ method: 'post', path: '/organizations', body: { name: NUL }, as: superAdmin }),
  ],
  [
    'registry',
    'registry.url',
    422,
    'registry.url: must not contain NUL',
    (w) => ({
      method: 'put',
      path: `/organizations/${w.a.org.id}/registry`,
      body: { registry: { use_custom: true, url: NUL } },
    }),
  ],
  [
    'mount points',
    'mount_points.0',
    422,
    'mount_points.0: must not contain NUL',
    (w) => ({
      method: 'put',
      path: `/organizations/${w.a.org.id}/mount`,
      body: { mount_points: [NUL], safe_mount: false },
    }),
  ],
  [
    'invitation',
    'users.0',
    422,
    'users.0: must not contain NUL',
    () => ({ method: 'post', path: '/invite', body: { users: [NUL] } }),
  ],
  [
    'platform configuration',
    'registry.username',
    422,
    'registry.username: must not contain NUL',
    () => ({
      method: 'post',
      path: '/illumina/configuration',
      body: { registry: { username: NUL } },
      as: superAdmin,
    }),
  ],
  [
    'registration',
    'first_name',
    422,
    'first_name: must not contain NUL',
    () => ({
      method: 'post',
      path: '/user',
      body: { first_name: NUL, last_name: 'L', email: 'new@example.test', password: 'Sandflow-1' },
      as: nobody,
    }),
  ],
  [
    'sign-in',
    'password',
    422,
    'password: must not contain lone',
    () => ({
      method: 'post',
      path: '/login',
      body: { username: 'x@example.test', password: LONE_SURROGATE },
      as: nobody,
    }),
  ],
  [
    'outbox filter',
    'to',
    400,
    'to: must not contain NUL',
    () => ({ method: 'get', path: '/admin/outbox?to=%00', as: superAdmin }),
  ],
  [
    'verification link',
    'token',
    400,
    'token: must not contain NUL',
    () => ({ method: 'get', path: '/verify/abcdefghij%00', as: nobody }),
  ],
];

describe('bad input', () => {
  it.each(UNSTORABLE)(
    '%s: an unstorable %s → %i naming it, nothing written',
    async (_route, _field, status, message, build) => {
      const before = await snapshot();
      const { method, path, body, as } = build(w);
      const sender = as ? as(w) : { id: w.a.orgAdmin.id, org: w.a.org.id };
      let req = h.request[method](`/api/v0${path}`);
      if (sender) req = req.set('Authorization', `Bearer ${await h.tokenFor(sender.id, sender.org ?? null)}`);
      const res = await (body ? req.send(body as object) : req);
      expect(res.status).toBe(status);
      expect(res.body).toMatchObject({ result: null, status, error: { code: expect.any(String) } });
      expect(res.body.error.message).toContain(message);
      expect(await snapshot()).toEqual(before);
    },
  );

  it.each(BAD)('%s → %i naming the problem', async (_case, build, status, message) => {
    const before = await snapshot();
    const { method, path, body, raw, type, as } = build(w);
    const sender = as ? as(w) : { id: w.a.orgAdmin.id, org: w.a.org.id };
    let req = h.request[method](`/api/v0${path}`);
    if (sender) req = req.set('Authorization', `Bearer ${await h.tokenFor(sender.id, sender.org ?? null)}`);
    if (type) req = req.type(type);
    const res = await (raw !== undefined
      ? req.send(type === 'image/png' ? Buffer.from(raw, 'latin1') : raw)
      : body
        ? req.send(body as object)
        : req);
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ result: null, status, error: { code: expect.any(String) } });
    expect(res.body.error.message).toContain(message);
    expect(await snapshot()).toEqual(before);
  });

  it('accepts a png avatar and serves it back', async () => {
    const auth = `Bearer ${await h.tokenFor(w.a.orgAdmin.id, w.a.org.id)}`;
    const put = await h.request
      .put(`/api/v0/user/${w.a.orgAdmin.id}/avatar`)
      .set('Authorization', auth)
      .type('image/png')
      .send(PNG_BYTES);
    expect(put.body.result).toEqual({ type: 'image/png', size: PNG_BYTES.length });
    const get = await h.request.get(`/api/v0/user/${w.a.orgAdmin.id}/avatar`).set('Authorization', auth);
    expect(get.headers['content-type']).toBe('image/png');
  });

  it('lets a person without any organization yet set their own avatar', async () => {
    const loner = await createUser(h.db);
    const res = await h.request
      .put(`/api/v0/user/${loner.id}/avatar`)
      .set('Authorization', `Bearer ${await h.tokenFor(loner.id)}`)
      .type('image/png')
      .send(PNG_BYTES);
    expect(res.status).toBe(200);
  });

  it('answers 404 in the envelope for an unknown path', async () => {
    const res = await h.request.get('/api/v0/nothing-here');
    expect(res.body).toMatchObject({ result: null, status: 404, error: { code: 'not_found' } });
  });
});

async function snapshot() {
  const [tags, groups, feedback, invitations, orgs, avatars, users, contacts, settings] = await Promise.all([
    h.db('tags').count('* as n').first(),
    h.db('groups').orderBy('id').select('id', 'name', 'quota_cpu', 'gid'),
    h.db('feedback').count('* as n').first(),
    h.db('invitations').count('* as n').first(),
    h.db('organizations').orderBy('id').select('id', 'name', 'algorithm', 'registry', 'mount_points'),
    h.db('users').whereNotNull('avatar').pluck('id'),
    h.db('users').count('* as n').first(),
    h.db('contacts').count('* as n').first(),
    h.db('platform_settings').select(),
  ]);
  return { tags, groups, feedback, invitations, orgs, avatars: avatars.sort(), users, contacts, settings };
}
