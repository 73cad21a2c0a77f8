import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { readCachesFor, CALLER_CACHE_TTL_MS } from './read-caches.js';
import { ACK, REALTIME_PATH } from '../realtime.js';
import { createHarness, type Harness } from '../test-support/harness.js';
import { PNG_BYTES, createWorld, type World } from '../test-support/world.js';
import { channelFor } from './replica-bus.js';
import { servicesFor } from './index.js';

// Two API processes (harnesses with their own knex pools, services, caches and realtime
// servers) on one PostgreSQL database: what one changes reaches the other's caches and
// sockets through LISTEN/NOTIFY. Needs a real PostgreSQL (CI sets SANDFLOW_TEST_DATABASE_URL).
describe.skipIf(!process.env.SANDFLOW_TEST_DATABASE_URL)('API replicas on one PostgreSQL', () => {
  let a: Harness;
  let b: Harness;
  let hostB: string;
  let w: World;

  beforeAll(async () => {
    a = await createHarness({ config: { heartbeatMs: 1000 } });
    b = await createHarness({ replicaOf: a, config: { heartbeatMs: 1000 } });
    await a.listen();
    hostB = await b.listen();
    await Promise.all([servicesFor(a.deps).bus.listen(), servicesFor(b.deps).bus.listen()]);
  }, 60_000);
  beforeEach(async () => {
    await a.reset();
    w = await createWorld(a.db);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  /** Polls until `check` holds, well before the caches' TTL could have done it. */
  async function soon(check: () => boolean | Promise<boolean>, within = CALLER_CACHE_TTL_MS / 2) {
    const until = Date.now() + within;
    while (!(await check())) {
      if (Date.now() > until) throw new Error(`not within ${within} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  const me = async (h: Harness, userId: string) =>
    h.request.get('/api/v0/me').set('Authorization', `Bearer ${await h.tokenFor(userId, w.a.org.id)}`);

  it('both processes share one channel, distinct per schema', () => {
    expect(channelFor(a.db.client.config.searchPath)).toMatch(/^sandflow_api_t_/);
    expect(channelFor(b.db.client.config.searchPath)).toBe(channelFor(a.db.client.config.searchPath));
  });

  it("a change made through one process empties the other's caches", async () => {
    expect((await me(b, w.a.orgAdmin.id)).body.result.role).toBe('organization_admin');
    expect(readCachesFor(b.db).callers.size).toBeGreaterThan(0);
    const put = await a.request
      .put(`/api/v0/organizations/${w.a.org.id}/admin`)
      .set('Authorization', `Bearer ${await a.tokenFor(w.superAdmin.id, w.a.org.id)}`)
      .send({ admins: [w.a.user.email] });
    expect(put.status).toBe(200);
    await soon(() => readCachesFor(b.db).callers.size === 0);
    expect((await me(b, w.a.orgAdmin.id)).body.result.role).toBe('user');
  });

  it('a write outside a transaction on one process reaches the other too', async () => {
    expect((await me(b, w.a.user.id)).body.result.has_avatar).toBe(false);
    const put = await a.request
      .put(`/api/v0/user/${w.a.user.id}/avatar`)
      .set('Authorization', `Bearer ${await a.tokenFor(w.a.user.id, w.a.org.id)}`)
      .type('image/png')
      .send(PNG_BYTES);
    expect(put.status).toBe(200);
    await soon(async () => (await me(b, w.a.user.id)).body.result.has_avatar === true);
  });

  async function connect(userId: string) {
    const token = await b.tokenFor(userId, w.a.org.id);
    const socket = new WebSocket(`ws://${hostB}${REALTIME_PATH}?token=${token}`);
    const messages: { message_text: string }[] = [];
    socket.on('message', (data) => {
      messages.push(JSON.parse(data.toString()));
      socket.send(ACK);
    });
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    return { socket, messages };
  }

  const notify = (userId: string, text: string) =>
    servicesFor(a.deps).notifications.notify({
      userId,
      organizationId: w.a.org.id,
      title: 'Run',
      type: 'success',
      text,
    });

  it("a notification raised on one process reaches the person's socket on the other, once", async () => {
    const client = await connect(w.a.user.id);
    const other = await connect(w.b.user.id);
    await notify(w.a.user.id, 'Run completed');
    await soon(() => client.messages.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(client.messages.map((m) => m.message_text)).toEqual(['Run completed']);
    expect(other.messages).toEqual([]);
    client.socket.close();
    other.socket.close();
  });

  it('after its listening connection was lost, a process starts afresh: caches emptied, sockets caught up', async () => {
    const client = await connect(w.a.user.id);
    await me(b, w.a.user.id);
    expect(readCachesFor(b.db).callers.size).toBeGreaterThan(0);
    const channel = channelFor(b.db.client.config.searchPath);
    // Both processes' LISTEN connections go; the pools stay.
    const { rows } = (await a.db.raw(
      'select pg_terminate_backend(pid) from pg_stat_activity where query = ?',
      [`LISTEN "${channel}"`],
    )) as { rows: unknown[] };
    expect(rows.length).toBe(2);
    // Raised while nobody listens: the NOTIFY is lost, the row is not.
    await notify(w.a.user.id, 'while away');
    await soon(() => client.messages.length === 1 && readCachesFor(b.db).callers.size === 0, 10_000);
    expect(client.messages.map((m) => m.message_text)).toEqual(['while away']);
    // Listening again: the next one arrives as usual.
    await notify(w.a.user.id, 'back');
    await soon(() => client.messages.length === 2);
    client.socket.close();
  }, 20_000);
});
