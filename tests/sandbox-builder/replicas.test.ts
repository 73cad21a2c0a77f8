// The builder's grace period across two API processes (replicas) on one PostgreSQL, as in
// cluster mode: both see the same containers (here one bwrap builder, as every replica watches
// the same builder Pods); the Service balances terminal sockets over them. A terminal that
// reconnects through the other replica keeps the container; with none anywhere it stops once;
// a replica that goes silent with a terminal open does not keep it forever.
// Needs a real PostgreSQL (SANDFLOW_TEST_DATABASE_URL, as `npm run test:db` in CI).
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  attachTerminal,
  closeServices,
  createApp,
  createMailer,
  servicesFor,
  type ApiDeps,
} from '@sandflow/api';
import knexFactory, { type Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SOURCE, builderMissing, openTerminal, startPlatform, type Platform } from './platform.js';

const missing = builderMissing();
if (missing) console.warn(`sandbox builder replica suite skipped: ${missing} not installed`);
const shared = !!process.env.SANDFLOW_TEST_DATABASE_URL;
if (!shared) console.warn('sandbox builder replica suite skipped: needs SANDFLOW_TEST_DATABASE_URL');

// Short, but long enough for a reconnect on a loaded machine; heartbeats every GRACE_MS / 4
// (services/containers.ts), a silent replica taken for dead after three of them.
const GRACE_MS = 2000;
const HEARTBEAT_MS = GRACE_MS / 4;
const EXPIRY_MS = 3 * HEARTBEAT_MS;

/** The second API process: its own database pool (so its own bus), services and server. */
interface Replica {
  base: string;
  deps: ApiDeps;
  stop(): Promise<void>;
}

async function startReplica(of: Platform): Promise<Replica> {
  const config = of.deps.db.client.config as Knex.Config;
  const db = knexFactory({
    client: 'pg',
    connection: config.connection,
    searchPath: config.searchPath,
    pool: { min: 0, max: 4 },
  });
  const deps: ApiDeps = {
    ...of.deps,
    db,
    mailer: createMailer({ db, from: of.deps.config.mailFrom }),
  };
  const app = createApp(deps);
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const terminal = attachTerminal(server, deps);
  let stopped = false;
  return {
    base: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    deps,
    async stop() {
      if (stopped) return;
      stopped = true;
      terminal.close();
      await new Promise((resolve) => server.close(resolve));
      await closeServices(deps);
      await db.destroy();
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!!missing || !shared)('the builder grace period across API replicas', () => {
  let p: Platform;
  let b: Replica;

  beforeAll(async () => {
    p = await startPlatform({ builder: { uploadMaxBytes: 1024 * 1024, terminalGraceMs: GRACE_MS } });
    b = await startReplica(p);
    await Promise.all([servicesFor(p.deps).bus.listen(), servicesFor(b.deps).bus.listen()]);
  }, 120_000);
  afterAll(async () => {
    await b?.stop();
    await p?.stop();
  });

  const token = () => p.token(p.world.a.user.id, p.world.a.org.id);

  async function start(): Promise<string> {
    const res = await p.request
      .post('/api/v0/image')
      .set('Authorization', `Bearer ${await token()}`)
      .send({ ...SOURCE, name: 'box' });
    expect(res.body.error).toBeUndefined();
    return res.body.result as string;
  }

  /** Waits (bounded) until the builder no longer has the container. */
  async function gone(id: string, within: number) {
    const until = Date.now() + within;
    while (p.builder.get(id) && Date.now() < until) await sleep(25);
    return p.builder.get(id) === undefined;
  }

  it('both replicas are on one bus, each with its own origin', () => {
    const [busA, busB] = [servicesFor(p.deps).bus, servicesFor(b.deps).bus];
    expect(busA.shared && busB.shared).toBe(true);
    expect(busA.origin).not.toBe(busB.origin);
  });

  it('a terminal closed on A and reopened on B within grace keeps the container; closed on both, it stops once', async () => {
    const stops = vi.spyOn(p.builder, 'stop');
    try {
      const id = await start();
      const onA = await openTerminal(p.base, id, await token());
      onA.socket.close();
      await onA.closed;
      await sleep(GRACE_MS / 4);
      const onB = await openTerminal(b.base, id, await token());
      // A's own timer would have fired by now; the container is still there and usable.
      await sleep(GRACE_MS + EXPIRY_MS + 500);
      expect(p.builder.get(id)).toBeDefined();
      onB.run('echo $((6*7))');
      await onB.waitFor(/\r\n42\r\n/);
      onB.socket.close();
      await onB.closed;
      expect(await gone(id, GRACE_MS + EXPIRY_MS + 5000)).toBe(true);
      // Past the other replica's later (backup) deadline too: still exactly one stop.
      await sleep(EXPIRY_MS + 500);
      expect(stops.mock.calls.filter(([stopped]) => stopped === id)).toHaveLength(1);
    } finally {
      stops.mockRestore();
    }
  }, 60_000);

  it('with terminals open on both replicas, closing one keeps the container', async () => {
    const id = await start();
    const onA = await openTerminal(p.base, id, await token());
    const onB = await openTerminal(b.base, id, await token());
    onB.socket.close();
    await onB.closed;
    await sleep(GRACE_MS + EXPIRY_MS + 500);
    expect(p.builder.get(id)).toBeDefined();
    onA.run('echo still here');
    await onA.waitFor(/\r\nstill here\r\n/);
    onA.socket.close();
    expect(await gone(id, GRACE_MS + EXPIRY_MS + 5000)).toBe(true);
  }, 60_000);

  it('a replica starting finds a container nobody has a terminal on (its replica crashed): stopped after grace + expiry', async () => {
    // Made behind the API's back: no replica has a timer for it, as after the crash of the only one.
    const { reference } = await servicesFor(p.deps).images.resolve(
      p.world.a.org.id,
      SOURCE.source_image,
      SOURCE.source_version,
    );
    const orphan = await p.builder.start({
      image: reference,
      architecture: 'amd64',
      uid: 1000,
      gid: 1000,
      owner: p.world.a.user.id,
      organization: p.world.a.org.id,
    });
    const startedAt = Date.now();
    const c = await startReplica(p);
    try {
      await servicesFor(c.deps).bus.listen();
      expect(await gone(orphan.id, GRACE_MS + 2 * EXPIRY_MS + 5000)).toBe(true);
      // It waited for the other replicas' heartbeats before deciding.
      expect(Date.now() - startedAt).toBeGreaterThanOrEqual(GRACE_MS + EXPIRY_MS);
    } finally {
      await c.stop();
    }
  }, 60_000);

  it('a replica that goes silent with a terminal open: the other stops the container after expiry + grace', async () => {
    const id = await start();
    const onB = await openTerminal(b.base, id, await token());
    await sleep(HEARTBEAT_MS * 2);
    // B stops talking (its bus and timers end), its socket stays: to A it is dead.
    const silentAt = Date.now();
    await closeServices(b.deps);
    expect(await gone(id, GRACE_MS + 2 * EXPIRY_MS + 5000)).toBe(true);
    // Not before B could have expired: within grace of its last heartbeat it was kept.
    expect(Date.now() - silentAt).toBeGreaterThanOrEqual(GRACE_MS);
    onB.socket.terminate();
  }, 60_000);
});
