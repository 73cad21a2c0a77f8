// The container service's grace period with one process (embedded: its own timer, as before)
// and with replicas on one bus (cluster mode), over an in-memory channel and an in-memory
// builder that records stops. The real builder and PostgreSQL: tests/sandbox-builder/replicas.test.ts.
import type { Builder, BuilderContainer, BuilderShell } from '@sandflow/images';
import type { Knex } from 'knex';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { Caller } from './callers.js';
import { createContainerService, terminalHeartbeatMs } from './containers.js';
import type { ImageService } from './images.js';
import { createReplicaBus, type ReplicaBus, type Transport } from './replica-bus.js';

const GRACE_MS = 600;
const HEARTBEAT_MS = 50;
const EXPIRY_MS = 3 * HEARTBEAT_MS;

/** Containers in memory; every replica sees the same ones, like the builder Pods. */
function memoryBuilder() {
  const containers = new Map<string, BuilderContainer>();
  const stops: string[] = [];
  const unused = () => Promise.reject(new Error('not used by these tests'));
  const builder: Builder = {
    start: unused,
    get: (id) => containers.get(id),
    list: () => [...containers.values()],
    async shell(id) {
      if (!containers.has(id)) throw new Error(`no container ${id}`);
      const shell: BuilderShell = {
        write() {},
        resize() {},
        onData() {},
        onExit() {},
        close() {},
      };
      return shell;
    },
    exists: unused,
    writeFile: unused,
    changes: unused,
    commit: unused,
    async stop(id) {
      stops.push(id);
      containers.delete(id);
    },
  };
  const add = (id: string) =>
    containers.set(id, {
      id,
      image: 'busybox',
      architecture: 'amd64',
      owner: 'u1',
      organization: 'o1',
      startedAt: new Date().toISOString(),
    });
  return { builder, stops, add };
}

/** NOTIFY in memory: every listening transport gets every payload, unless made deaf. */
function memoryChannel() {
  const listeners = new Map<number, (payload: string) => void>();
  const deaf = new Set<number>();
  let next = 0;
  const transport = (): Transport & { index: number } => {
    const index = next++;
    return {
      index,
      maxPayload: 7900,
      async start(receive) {
        listeners.set(index, receive);
      },
      async send(payload) {
        for (const [i, listener] of listeners) if (!deaf.has(i)) listener(payload);
      },
      async close() {
        listeners.delete(index);
      },
    };
  };
  return { transport, deaf };
}

const caller: Caller = {
  userId: 'u1',
  email: 'u1@example.com',
  name: 'U1',
  isSuperAdmin: false,
  currentOrganizationId: 'o1',
  memberships: new Map([['o1', 'user']]),
  adminGroups: new Map(),
};

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

function service(builder: Builder, bus: ReplicaBus) {
  const containers = createContainerService({
    db: {} as Knex,
    builder,
    images: {} as ImageService,
    sandboxes: () => Promise.reject(new Error('not used')),
    graceMs: GRACE_MS,
    heartbeatMs: HEARTBEAT_MS,
    logger: pino({ level: 'silent' }),
    bus,
  });
  cleanups.push(
    () => containers.close(),
    () => bus.close(),
  );
  return containers;
}

async function replica(builder: Builder, transport: Transport) {
  const bus = createReplicaBus(transport);
  await bus.listen();
  return service(builder, bus);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Waits (bounded) until the container is gone; whether it went. */
async function gone(builder: Builder, id: string, within: number) {
  const until = Date.now() + within;
  while (builder.get(id) && Date.now() < until) await sleep(10);
  return builder.get(id) === undefined;
}

describe('terminalHeartbeatMs', () => {
  it.each([
    [60_000, 10_000],
    [20_000, 5000],
    [3000, 750],
    [200, 250],
  ])('grace %i ms → heartbeat %i ms', (grace, heartbeat) => {
    expect(terminalHeartbeatMs(grace)).toBe(heartbeat);
  });
});

describe('the grace period in one process (embedded: no shared bus)', () => {
  it('stops the container grace after its last terminal closed; a terminal within grace keeps it', async () => {
    const { builder, stops, add } = memoryBuilder();
    add('c1');
    const containers = service(builder, createReplicaBus(null));
    const first = await containers.openShell(caller, 'c1');
    containers.closeShell('c1', first);
    await sleep(GRACE_MS / 2);
    const second = await containers.openShell(caller, 'c1');
    await sleep(GRACE_MS);
    expect(builder.get('c1')).toBeDefined();
    const closedAt = Date.now();
    containers.closeShell('c1', second);
    expect(await gone(builder, 'c1', GRACE_MS + 2000)).toBe(true);
    expect(Date.now() - closedAt).toBeGreaterThanOrEqual(GRACE_MS - 5);
    expect(stops).toEqual(['c1']);
  });

  it('a container there at start with no terminal stops after grace', async () => {
    const { builder, stops, add } = memoryBuilder();
    add('left');
    service(builder, createReplicaBus(null));
    expect(await gone(builder, 'left', GRACE_MS + 2000)).toBe(true);
    expect(stops).toEqual(['left']);
  });

  it('with a builder that lists from a watch (synced), looks at start once it has listed', async () => {
    const { builder, stops, add } = memoryBuilder();
    let markSynced!: () => void;
    const watching = Object.assign(builder, { synced: new Promise<void>((r) => (markSynced = r)) });
    service(watching, createReplicaBus(null));
    // Seen by the watch after the services were built, as a Pod of a crashed replica is.
    add('left');
    await sleep(GRACE_MS + 100);
    expect(builder.get('left')).toBeDefined();
    markSynced();
    expect(await gone(builder, 'left', GRACE_MS + 2000)).toBe(true);
    expect(stops).toEqual(['left']);
  });
});

describe('the grace period across replicas on one bus', () => {
  it('closed on A, reopened on B within grace: kept; closed on B: stopped once', async () => {
    const { builder, stops, add } = memoryBuilder();
    const channel = memoryChannel();
    const a = await replica(builder, channel.transport());
    const b = await replica(builder, channel.transport());
    add('c1');
    const onA = await a.openShell(caller, 'c1');
    await sleep(HEARTBEAT_MS);
    a.closeShell('c1', onA);
    await sleep(GRACE_MS / 6);
    const onB = await b.openShell(caller, 'c1');
    await sleep(GRACE_MS + EXPIRY_MS + 100);
    expect(builder.get('c1')).toBeDefined();
    b.closeShell('c1', onB);
    expect(await gone(builder, 'c1', GRACE_MS + 2 * EXPIRY_MS + 2000)).toBe(true);
    await sleep(EXPIRY_MS + 100);
    expect(stops).toEqual(['c1']);
  });

  it('a process that does not hear the bus (not even itself) stops nothing until it hears again', async () => {
    const { builder, stops, add } = memoryBuilder();
    const channel = memoryChannel();
    const transport = channel.transport();
    const a = await replica(builder, transport);
    add('c1');
    const shell = await a.openShell(caller, 'c1');
    channel.deaf.add(transport.index);
    await sleep(EXPIRY_MS + 50);
    a.closeShell('c1', shell);
    await sleep(GRACE_MS + 3 * HEARTBEAT_MS);
    expect(builder.get('c1')).toBeDefined();
    channel.deaf.delete(transport.index);
    expect(await gone(builder, 'c1', GRACE_MS + 2000)).toBe(true);
    expect(stops).toEqual(['c1']);
  });
});
