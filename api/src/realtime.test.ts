import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ACK, REALTIME_PATH } from './realtime.js';
import { servicesFor } from './services/index.js';
import { createHarness, type Harness } from './test-support/harness.js';
import { createWorld, type World } from './test-support/world.js';

let h: Harness;
let host: string;
let w: World;
beforeAll(async () => {
  h = await createHarness({ config: { heartbeatMs: 50 } });
  host = await h.listen();
}, 60_000);
beforeEach(async () => {
  await h.reset();
  w = await createWorld(h.db);
});
afterAll(() => h.close());

/** A client that records messages and answers each with Ok, like the console. */
async function connect(userId: string, options: { acknowledge?: boolean } = {}) {
  const token = await h.tokenFor(userId, w.a.org.id);
  const socket = new WebSocket(`ws://${host}${REALTIME_PATH}?token=${token}`);
  const messages: Record<string, unknown>[] = [];
  let arrived: (() => void) | undefined;
  socket.on('message', (data) => {
    messages.push(JSON.parse(data.toString()));
    if (options.acknowledge !== false) socket.send(ACK);
    arrived?.();
  });
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  return {
    socket,
    messages,
    async waitFor(count: number) {
      while (messages.length < count) await new Promise<void>((resolve) => (arrived = resolve));
    },
    close: () => new Promise((resolve) => socket.once('close', resolve).close(1000)),
  };
}

const notify = (userId: string, text: string) =>
  servicesFor(h.deps).notifications.notify({
    userId,
    organizationId: w.a.org.id,
    title: 'Run',
    type: 'success',
    text,
    data: { action: 'run', uuid: 's-1', run_uuid: 'r-1' },
  });

const settle = () => new Promise((resolve) => setTimeout(resolve, 100));

describe('realtime notifications', () => {
  it('pushes the spec message shape and marks it delivered on Ok', async () => {
    const client = await connect(w.a.user.id);
    await notify(w.a.user.id, 'Run completed');
    await client.waitFor(1);
    expect(client.messages[0]).toEqual({
      id: expect.any(Number),
      message_title: 'Run',
      message_type: 'success',
      message_text: 'Run completed',
      message_data: JSON.stringify({ action: 'run', data: { uuid: 's-1', run_uuid: 'r-1' } }),
    });
    await settle();
    expect(Number((await h.db('notifications').whereNull('delivered_at').count('* as n').first())!.n)).toBe(
      0,
    );
    await client.close();
  });

  it('sends a reconnecting client what it missed, and only its own', async () => {
    const first = await connect(w.a.user.id, { acknowledge: false });
    await notify(w.a.user.id, 'one');
    await first.waitFor(1);
    await first.close(); // never acknowledged
    await notify(w.a.user.id, 'two'); // sent while away
    await notify(w.b.user.id, 'for someone else');

    const again = await connect(w.a.user.id);
    await again.waitFor(2);
    await settle();
    expect(again.messages.map((m) => m.message_text)).toEqual(['one', 'two']);
    await again.close();
  });

  it('refuses an upgrade without a valid token', async () => {
    const socket = new WebSocket(`ws://${host}${REALTIME_PATH}?token=forged`);
    const status = await new Promise((resolve) =>
      socket
        .on('unexpected-response', (_req, res) => resolve(res.statusCode))
        .on('error', () => resolve('error')),
    );
    expect(status).toBe(401);
  });

  it('pings to keep the connection alive', async () => {
    const client = await connect(w.a.user.id);
    await new Promise((resolve) => client.socket.once('ping', resolve));
    await client.close();
  });

  it('does not list again as new what a socket acknowledged', async () => {
    const client = await connect(w.a.user.id);
    await notify(w.a.user.id, 'shown live');
    await client.waitFor(1);
    await settle();
    await client.close();
    const auth = `Bearer ${await h.tokenFor(w.a.user.id, w.a.org.id)}`;
    const fresh = await h.request.get('/api/v0/notifications/new').set('Authorization', auth);
    expect(fresh.body.result).toEqual([]);
  });

  it('lists unseen notifications once through GET /notifications/new', async () => {
    await notify(w.a.user.id, 'hello');
    const auth = `Bearer ${await h.tokenFor(w.a.user.id, w.a.org.id)}`;
    const first = await h.request.get('/api/v0/notifications/new').set('Authorization', auth);
    expect(first.body.result).toEqual([
      expect.objectContaining({
        title: 'Run',
        type: 'success',
        text: 'hello',
        link: '/dashboard/session/s-1/r-1',
        message_data: { action: 'run', uuid: 's-1', run_uuid: 'r-1' },
      }),
    ]);
    expect((await h.request.get('/api/v0/notifications/new').set('Authorization', auth)).body.result).toEqual(
      [],
    );
  });
});

describe('notification mail', () => {
  it.each([
    [true, 1],
    [false, 0],
  ])('mails a notification when asked and mail_notification is %s', async (preference, mails) => {
    await h.db('users').where({ id: w.a.user.id }).update({ mail_notification: preference });
    await servicesFor(h.deps).notifications.notify({
      userId: w.a.user.id,
      organizationId: w.a.org.id,
      title: 'Run failed',
      text: 'r-1 failed',
      mail: true,
    });
    expect(await h.db('outbox').where({ to: w.a.user.email, subject: 'Run failed' })).toHaveLength(mails);
  });
});

describe('GET /illumina/events', () => {
  it('pages newest first, 30 a page, scoped to the caller', async () => {
    const events = servicesFor(h.deps).events;
    for (let i = 0; i < 33; i++) {
      await events.record(
        { userId: w.a.user.id, name: 'A user' },
        { kind: 'sandboxes', action: 'create', subject: `s${i}`, organizationId: w.a.org.id },
      );
    }
    await events.record(
      { userId: w.a.orgAdmin.id, name: 'A admin' },
      { kind: 'groups', action: 'update', subject: 'g', organizationId: w.a.org.id },
    );
    await events.record(
      { userId: w.b.orgAdmin.id, name: 'B admin' },
      { kind: 'groups', action: 'update', subject: 'b', organizationId: w.b.org.id },
    );

    const page = async (userId: string, n: number) =>
      (
        await h.request
          .get(`/api/v0/illumina/events?page=${n}`)
          .set('Authorization', `Bearer ${await h.tokenFor(userId, w.a.org.id)}`)
      ).body.result as { subject: string; organization_name: string }[];

    const first = await page(w.a.user.id, 0);
    expect(first).toHaveLength(30);
    expect(first[0]).toMatchObject({
      subject: 's32',
      organization_name: 'Alpha',
      action: 'create',
      user_name: 'A user',
      timestamp: expect.any(String),
    });
    expect((await page(w.a.user.id, 1)).map((e) => e.subject)).toEqual(['s2', 's1', 's0']);
    expect(await page(w.a.user.id, 2)).toEqual([]);
    // The organization admin also sees the others' events of Alpha; the super admin everything.
    expect((await page(w.a.orgAdmin.id, 0))[0]!.subject).toBe('g');
    expect((await page(w.superAdmin.id, 0))[0]!.subject).toBe('b');
  });

  it('records an event for each administrative change', async () => {
    const auth = `Bearer ${await h.tokenFor(w.a.orgAdmin.id, w.a.org.id)}`;
    await h.request
      .post('/api/v0/group')
      .set('Authorization', auth)
      .send({ name: 'New', quota: { cpu: 1, memory: 1, disk: 1 } });
    await h.request
      .put(`/api/v0/organizations/${w.a.org.id}/algorithm`)
      .set('Authorization', auth)
      .send({ algorithm: 'fill_one' });
    await h.request.delete(`/api/v0/user/${w.a.target.id}/group/${w.a.group.id}`).set('Authorization', auth);
    const kinds = await h.db('events').orderBy('id').select('kind', 'action', 'subject');
    expect(kinds).toEqual([
      { kind: 'groups', action: 'create', subject: 'New' },
      { kind: 'organizations', action: 'update', subject: 'Alpha' },
      { kind: 'groups', action: 'update', subject: 'Alpha team' },
    ]);
  });
});
