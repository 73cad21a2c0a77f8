import { KubeConfig } from '@kubernetes/client-node';
import { KINDS, Kube } from '@sandflow/kube';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { resourcesSynced } from '../index.js';
import { servicesFor } from '../services/index.js';
import { createHarness, type Harness } from '../test-support/harness.js';
import { createWorld, type Tenant, type World } from '../test-support/world.js';
import { startTestKube, type TestKube } from './test-kube.js';

let kube: TestKube;
let h: Harness;
let w: World;
let client: Kube;
let base: string;
const sockets: WebSocket[] = [];

interface Inbox {
  /** `uuid action` of each message, in order. */
  uuids: string[];
  next(): Promise<{ uuid: string; action: string }>;
}

/** A realtime socket of the person, answering every message with Ok. */
async function inbox(user: { id: string }, org: Tenant): Promise<Inbox> {
  const token = await h.tokenFor(user.id, org.org.id);
  const socket = new WebSocket(`ws://${base}/api/v0/notifications?token=${token}`);
  sockets.push(socket);
  const queue: { uuid: string; action: string }[] = [];
  const waiting: ((m: { uuid: string; action: string }) => void)[] = [];
  const uuids: string[] = [];
  socket.on('message', (raw) => {
    socket.send('Ok');
    const data = JSON.parse(JSON.parse(raw.toString()).message_data);
    const message = { uuid: data.data.uuid as string, action: data.action as string };
    uuids.push(`${message.uuid} ${message.action}`);
    const waiter = waiting.shift();
    if (waiter) waiter(message);
    else queue.push(message);
  });
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  return {
    uuids,
    next: () => {
      const queued = queue.shift();
      return queued ? Promise.resolve(queued) : new Promise((resolve) => waiting.push(resolve));
    },
  };
}

const apply = (t: Tenant, name: string, spec: object, owner?: string) =>
  client.create(KINDS.sandbox, `sf-${t.org.slug}`, {
    apiVersion: 'sandflow.io/v1alpha1',
    kind: 'Sandbox',
    metadata: { name },
    spec: { entrypoint: '/run.sh', ...spec, ...(owner ? { owner } : {}) },
  });

beforeAll(async () => {
  kube = await startTestKube();
  h = await createHarness({ kube: kube.kubeConfig });
  w = await createWorld(h.db);
  const services = servicesFor(h.deps);
  for (const t of [w.a, w.b]) await services.kube.syncOrganization(t.org);
  await services.resources!.synced;
  client = new Kube(kube.kubeConfig);
  base = await h.listen();
}, 60_000);

afterAll(async () => {
  for (const socket of sockets) socket.close();
  await h?.close();
  await kube?.close();
});

describe('realtime messages for resource changes', () => {
  it('reach the members who can see the object — not others, not another organization, not the one who made the change', async () => {
    const owner = await inbox(w.a.target, w.a);
    const member = await inbox(w.a.user, w.a);
    const stranger = await inbox(w.b.user, w.b);

    await apply(w.a, 'secret-box', { name: 'secret' }, w.a.target.id);
    expect(await owner.next()).toEqual({ uuid: 'secret-box', action: 'sandboxes.create' });

    // Public: the member sees it; it is their first message, so the private one never reached them.
    await apply(w.a, 'open-box', { name: 'open', visibility: { type: 'public' } });
    expect(await member.next()).toEqual({ uuid: 'open-box', action: 'sandboxes.create' });

    // The owner's own API write of a private sandbox reaches nobody: not the owner, not the member.
    const res = await h.request
      .put('/api/v0/sandbox/secret-box/name')
      .set('Authorization', `Bearer ${await h.tokenFor(w.a.target.id, w.a.org.id)}`)
      .send({ name: 'renamed' });
    expect(res.status).toBe(200);
    await client.patch(KINDS.sandbox, `sf-${w.a.org.slug}`, 'open-box', { spec: { description: 'x' } });
    expect(await owner.next()).toEqual({ uuid: 'open-box', action: 'sandboxes.create' });
    expect(await owner.next()).toEqual({ uuid: 'open-box', action: 'sandboxes.update' });
    expect(owner.uuids).toEqual([
      'secret-box sandboxes.create',
      'open-box sandboxes.create',
      'open-box sandboxes.update',
    ]);
    expect(await member.next()).toEqual({ uuid: 'open-box', action: 'sandboxes.update' });
    expect(member.uuids).toEqual(['open-box sandboxes.create', 'open-box sandboxes.update']);

    await apply(w.b, 'their-box', { name: 'theirs', visibility: { type: 'public' } });
    expect(await stranger.next()).toEqual({ uuid: 'their-box', action: 'sandboxes.create' });
    expect(stranger.uuids).toEqual(['their-box sandboxes.create']);
  });

  it('records kubectl changes in the audit log without an actor, classified by what changed', async () => {
    await apply(w.a, 'audited-box', { name: 'audited', variables: [{ name: 'A', value: '1' }] });
    const namespace = `sf-${w.a.org.slug}`;
    await client.patch(KINDS.sandbox, namespace, 'audited-box', {
      spec: { variables: [{ name: 'A', value: '2' }] },
    });
    await client.patch(KINDS.sandbox, namespace, 'audited-box', { spec: { name: 'audited_again' } });
    await client.delete(KINDS.sandbox, namespace, 'audited-box');
    let rows: { action: string; subject: string; user_id: string | null }[] = [];
    for (let i = 0; i < 200 && rows.length < 4; i++) {
      rows = await h
        .db('events')
        .where({ kind: 'sandboxes' })
        .whereIn('subject', ['audited', 'audited_again'])
        .orderBy('id')
        .select('action', 'subject', 'user_id');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(rows).toEqual([
      { action: 'create', subject: 'audited', user_id: null },
      { action: 'variables', subject: 'audited', user_id: null },
      { action: 'rename', subject: 'audited_again', user_id: null },
      { action: 'remove', subject: 'audited_again', user_id: null },
    ]);
  });
});

describe('readiness', () => {
  it('is reached once the caches have synced, and not while the Kubernetes API cannot be listed', async () => {
    expect(resourcesSynced(h.deps)).toBe(true);
    const unreachable = new KubeConfig();
    unreachable.loadFromOptions({
      clusters: [{ name: 'none', server: 'https://127.0.0.1:1', skipTLSVerify: true }],
      users: [{ name: 'none', token: 'x' }],
      contexts: [{ name: 'none', cluster: 'none', user: 'none' }],
      currentContext: 'none',
    });
    const down = await createHarness({ kube: unreachable });
    try {
      expect(resourcesSynced(down.deps)).toBe(false);
    } finally {
      await down.close();
    }
  }, 60_000);
});
