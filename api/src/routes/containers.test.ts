import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { BUILDER_MISSING } from '../services/containers.js';
import { createHarness, type Harness } from '../test-support/harness.js';
import { createWorld, type World } from '../test-support/world.js';

// Without a builder (a machine without bwrap) every builder route is a 503 saying why; the
// routes with the real builder are tested in tests/sandbox-builder.
let h: Harness;
let w: World;
let base: string;
beforeAll(async () => {
  h = await createHarness();
  base = await h.listen();
}, 60_000);
beforeEach(async () => {
  await h.reset();
  w = await createWorld(h.db);
});
afterAll(() => h.close());

const token = () => h.tokenFor(w.a.user.id, w.a.org.id);

describe('the builder routes without a builder', () => {
  it.each([
    ['post', '/image', { source_image: 'busybox', source_version: 'latest', name: 'box' }],
    ['post', '/image/a-sandbox', { sandbox_name: 'box' }],
    ['delete', '/image/c1', undefined],
    ['post', '/image/c1/delete', undefined],
    ['post', '/container/c1/archive', { name: 'a.txt' }],
    ['put', '/container/c1/archive', undefined],
    ['post', '/terminal', { uuid: 'c1', rows: 46, cols: 160 }],
  ] as const)('%s %s answers 503 saying why the builder is missing', async (method, path, body) => {
    const req = h.request[method](`/api/v0${path}`).set('Authorization', `Bearer ${await token()}`);
    const res = await (body ? req.send(body) : req);
    expect(res.status).toBe(503);
    expect(res.body.error).toEqual({ code: 'builder_unavailable', message: BUILDER_MISSING });
  });

  it.each([
    [
      'a name with #',
      { source_image: 'busybox', source_version: '1', name: 'a#b' },
      'name: Invalid character in name: #',
    ],
    [
      'an empty name',
      { source_image: 'busybox', source_version: '1', name: '' },
      'name: Please, enter a valid name',
    ],
    [
      'a version over 128 characters',
      { source_image: 'busybox', source_version: 'v'.repeat(129), name: 'b' },
      'source_version: Invalid sandbox version format',
    ],
    [
      'a version starting with a dot',
      { source_image: 'busybox', source_version: '.1', name: 'b' },
      'source_version: Invalid sandbox version format',
    ],
    [
      'a NUL byte in the image',
      { source_image: 'busy\0box', source_version: '1', name: 'b' },
      'source_image: must not contain NUL',
    ],
    [
      'an unknown architecture',
      { source_image: 'busybox', source_version: '1', name: 'b', architecture: 'mips' },
      'architecture',
    ],
  ])('POST /image refuses %s before anything starts', async (_case, body, message) => {
    const res = await h.request
      .post('/api/v0/image')
      .set('Authorization', `Bearer ${await token()}`)
      .send(body);
    expect(res.status).toBe(422);
    expect(res.body.error.message).toContain(message);
  });

  it.each([
    ['/container/c1/archive', { name: '../../etc/passwd' }, 'name: must be a file name without /'],
    ['/container/c1/archive', { name: 'a\0b' }, 'name: must not contain NUL'],
    ['/container/c1/archive', { name: '..' }, 'name: must be a file name'],
    ['/container/c1/archive', { name: 'a', path: '/tmp/../../etc' }, 'path: may not contain ..'],
    ['/terminal', { uuid: 'c1', rows: 46, cols: 100_000 }, 'cols: must be at most 1000'],
    ['/terminal', { uuid: 'c1', rows: 0, cols: 160 }, 'rows: must be at least 1'],
    ['/terminal', { uuid: '../x', rows: 46, cols: 160 }, 'uuid: must be a container id'],
  ])('POST %s refuses hostile input naming the field', async (path, body, message) => {
    const res = await h.request
      .post(`/api/v0${path}`)
      .set('Authorization', `Bearer ${await token()}`)
      .send(body);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.body.error.message).toContain(message);
  });

  it.each([
    ['no session', '/log/c1', undefined, 401],
    ['no builder', '/log/c1', 'token', 503],
    ['no builder, under /api/v0', '/api/v0/log/c1', 'token', 503],
    ['a huge size', '/log/c1?cols=99999&rows=46', 'token', 400],
  ])('the terminal socket refuses %s', async (_case, path, auth, status) => {
    const headers = auth ? { authorization: `Bearer ${await token()}` } : undefined;
    const socket = new WebSocket(`ws://${base}${path}`, { headers });
    const refused = await new Promise<number>((resolve, reject) => {
      socket.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      socket.on('open', () => reject(new Error('the socket opened')));
      socket.on('error', () => undefined);
    });
    socket.terminate();
    expect(refused).toBe(status);
  });
});
