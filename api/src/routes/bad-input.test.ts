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

describe('bad input', () => {
  it.each(BAD)('%s → %i naming the problem', async (_case, build, status, message) => {
    const before = await snapshot();
    const { method, path, body, raw, type } = build(w);
    let req = h.request[method](`/api/v0${path}`).set(
      'Authorization',
      `Bearer ${await h.tokenFor(w.a.orgAdmin.id, w.a.org.id)}`,
    );
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
  const [tags, groups, feedback, invitations, orgs, avatars] = await Promise.all([
    h.db('tags').count('* as n').first(),
    h.db('groups').orderBy('id').select('id', 'name', 'quota_cpu', 'gid'),
    h.db('feedback').count('* as n').first(),
    h.db('invitations').count('* as n').first(),
    h.db('organizations').orderBy('id').select('id', 'algorithm'),
    h.db('users').whereNotNull('avatar').pluck('id'),
  ]);
  return { tags, groups, feedback, invitations, orgs, avatars: avatars.sort() };
}
