import type { Knex } from 'knex';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDatabase } from '../db/database.js';
import type { WriteContext } from './admission.js';
import { StatusError } from './errors.js';
import { Persistence, type PendingRow } from './persistence.js';
import { ResourceRegistry, resourceKey, type ResourceInfo } from './registry.js';
import { RestStorage } from './rest-storage.js';
import { ObjectStore, type StoreEvent } from './store.js';
import type { KubeObject } from './types.js';

/** The persistence kube-lite runs on, whose next commits fail as on a full disk. */
class FailingPersistence extends Persistence {
  failures = 0;

  protected override async commitBatch(rows: PendingRow[], rv: number): Promise<void> {
    if (this.failures > 0) {
      this.failures--;
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    }
    return super.commitBatch(rows, rv);
  }
}

const ctx = (): WriteContext => ({ manager: 'test', fieldValidation: 'Strict', dryRun: false, warnings: [] });
const configMap = (name: string, data: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'ns' },
  data,
});

let db: Knex;
let persistence: FailingPersistence;
let store: ObjectStore;
let storage: RestStorage;
let configMaps: ResourceInfo;
let events: StoreEvent[];

/** A store and its REST semantics over the database, as startKubeLite builds them. */
async function open(): Promise<{ store: ObjectStore; storage: RestStorage; configMaps: ResourceInfo }> {
  const s = new ObjectStore(persistence);
  await s.load();
  const registry = new ResourceRegistry();
  return {
    store: s,
    storage: new RestStorage(s, registry, pino({ level: 'silent' })),
    configMaps: registry.find('', 'v1', 'configmaps')!,
  };
}

const status = (e: unknown) => (e instanceof StatusError ? e.code : e);
const read = (name: string) => storage.get(configMaps, 'ns', name);

beforeEach(async () => {
  db = createDatabase({});
  persistence = new FailingPersistence(db);
  await persistence.migrate();
  ({ store, storage, configMaps } = await open());
  const namespaces = new ResourceRegistry().find('', 'v1', 'namespaces')!;
  await storage.create(namespaces, 'v1', '', { metadata: { name: 'ns' } }, ctx());
  events = [];
  store.subscribe({
    resource: resourceKey(configMaps),
    namespace: undefined,
    onEvent: (e) => events.push(e),
  });
});
afterEach(async () => {
  await persistence.drain();
  await db.destroy();
});

describe('kube-lite ObjectStore: a write that fails to commit never appears', () => {
  it.each([
    {
      write: 'create',
      before: async () => undefined,
      attempt: () => storage.create(configMaps, 'v1', 'ns', configMap('a', { v: '1' }), ctx()),
      served: undefined,
      event: 'ADDED',
    },
    {
      write: 'update',
      before: () => storage.create(configMaps, 'v1', 'ns', configMap('a', { v: '1' }), ctx()),
      attempt: () => storage.update(configMaps, 'v1', 'ns', 'a', configMap('a', { v: '2' }), ctx()),
      served: { v: '1' },
      event: 'MODIFIED',
    },
    {
      write: 'delete',
      before: () => storage.create(configMaps, 'v1', 'ns', configMap('a', { v: '1' }), ctx()),
      attempt: () => storage.delete(configMaps, 'ns', 'a', {}),
      served: { v: '1' },
      event: 'DELETED',
    },
  ])(
    'a failed $write answers an error, is neither served, watched nor stored, and can be sent again',
    async ({ before, attempt, served, event }) => {
      const previous = await before();
      events = [];
      const rv = store.resourceVersion;

      persistence.failures = 1;
      await expect(attempt()).rejects.toThrow('kube-lite could not persist a write');

      // Served as before the write: GET, LIST and the list's resourceVersion.
      if (served) expect(read('a')).toEqual(previous);
      else expect(() => read('a')).toThrow(expect.objectContaining({ code: 404 }));
      expect(storage.list(configMaps, 'ns', {}).items.map((o) => o.data)).toEqual(served ? [served] : []);
      expect(store.resourceVersion).toBe(rv);
      expect(events).toEqual([]);
      // Nor in the database: a restart reads the state from before the write.
      const restarted = await open();
      expect(restarted.store.get(resourceKey(configMaps), 'ns', 'a')?.data).toEqual(served);

      // The same write again goes through, seen once by watchers, after the resourceVersion.
      const done = await attempt();
      expect(events.map((e) => e.type)).toEqual([event]);
      expect(Number(done.metadata.resourceVersion)).toBeGreaterThan(rv);
      expect(store.resourceVersion).toBe(Number(done.metadata.resourceVersion));
      if (event === 'DELETED') expect(() => read('a')).toThrow(expect.objectContaining({ code: 404 }));
      else expect(read('a')).toEqual(done);
      expect((await open()).store.get(resourceKey(configMaps), 'ns', 'a')).toEqual(
        event === 'DELETED' ? undefined : done,
      );
    },
  );

  it('fails every write of a failed group commit and serves the writes after it', async () => {
    persistence.failures = 1;
    const first = await Promise.allSettled(
      ['a', 'b', 'c'].map((n) => storage.create(configMaps, 'v1', 'ns', configMap(n), ctx())),
    );
    expect(first.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    const second = await Promise.all(
      ['b', 'd'].map((n) => storage.create(configMaps, 'v1', 'ns', configMap(n), ctx())),
    );
    expect(storage.list(configMaps, 'ns', {}).items.map((o) => o.metadata.name)).toEqual(['b', 'd']);
    expect(events.map((e) => [e.type, e.object.metadata.name])).toEqual([
      ['ADDED', 'b'],
      ['ADDED', 'd'],
    ]);
    expect(events.map((e) => e.object)).toEqual(second);
  });
});

describe('kube-lite ObjectStore: the check and the commit of a write do not interleave', () => {
  it('serves nothing of a write before it is committed, and lists at a resourceVersion a watch resumes from', async () => {
    const writing = storage.create(configMaps, 'v1', 'ns', configMap('a'), ctx());
    const list = storage.list(configMaps, 'ns', {});
    expect(list.items).toEqual([]);
    const created = await writing;
    expect(Number(list.resourceVersion)).toBeLessThan(Number(created.metadata.resourceVersion));
    expect(store.eventsSince(Number(list.resourceVersion), resourceKey(configMaps), 'ns')).toEqual([
      expect.objectContaining({ type: 'ADDED', object: created }),
    ]);
  });

  it.each<{
    race: string;
    before: () => Promise<KubeObject | undefined>;
    write: (i: number, rv: string | undefined) => Promise<KubeObject>;
    outcomes: number[];
  }>([
    {
      race: 'two creates of one name',
      before: async () => undefined,
      write: (i) => storage.create(configMaps, 'v1', 'ns', configMap('a', { by: String(i) }), ctx()),
      outcomes: [200, 409],
    },
    {
      race: 'two updates from one resourceVersion',
      before: () => storage.create(configMaps, 'v1', 'ns', configMap('a'), ctx()),
      write: (i, rv) =>
        storage.update(
          configMaps,
          'v1',
          'ns',
          'a',
          {
            ...configMap('a', { by: String(i) }),
            metadata: { name: 'a', namespace: 'ns', resourceVersion: rv },
          },
          ctx(),
        ),
      outcomes: [200, 409],
    },
    {
      race: 'two deletes',
      before: () => storage.create(configMaps, 'v1', 'ns', configMap('a'), ctx()),
      write: (_i, rv) => storage.delete(configMaps, 'ns', 'a', { preconditions: { resourceVersion: rv! } }),
      outcomes: [200, 404],
    },
  ])('$race: one wins, the other is refused', async ({ before, write, outcomes }) => {
    const rv = (await before())?.metadata.resourceVersion;
    events = [];
    const results = await Promise.allSettled([write(1, rv), write(2, rv)]);
    expect(results.map((r) => (r.status === 'fulfilled' ? 200 : status(r.reason)))).toEqual(outcomes);
    expect(events).toHaveLength(1);
  });

  it('applies concurrent merge patches of one object one after the other, none lost', async () => {
    await storage.create(configMaps, 'v1', 'ns', configMap('a'), ctx());
    events = [];
    const patches = Array.from({ length: 20 }, (_, i) =>
      storage.patch(
        configMaps,
        'v1',
        'ns',
        'a',
        'merge',
        { data: { [`k${i}`]: String(i) } },
        { ...ctx(), force: false },
      ),
    );
    await Promise.all(patches);
    expect(Object.keys(read('a').data as object)).toHaveLength(20);
    const rvs = events.map((e) => e.rv);
    expect(rvs).toHaveLength(20);
    expect(rvs).toEqual([...rvs].sort((x, y) => x - y));
    expect(events.at(-1)!.object).toEqual(read('a'));
  });

  it('commits a group of more than one statement whole (1,500 creates in one turn)', async () => {
    const created = await Promise.all(
      Array.from({ length: 1500 }, (_, i) =>
        storage.create(configMaps, 'v1', 'ns', configMap(`m${i}`), ctx()),
      ),
    );
    expect(created).toHaveLength(1500);
    const restarted = await open();
    expect(restarted.store.count(resourceKey(configMaps))).toBe(1500);
    expect(restarted.store.resourceVersion).toBe(store.resourceVersion);
  });
});

describe('kube-lite ObjectStore: the watch history is bounded in time and count', () => {
  /** A store over the same database whose clock the test moves. */
  async function clocked(options: { historyMs: number; logCapacity: number }) {
    const clock = { now: 1_000_000 };
    const s = new ObjectStore(persistence, { ...options, now: () => clock.now });
    await s.load();
    s.startWatchHistory();
    const st = new RestStorage(s, new ResourceRegistry(), pino({ level: 'silent' }));
    /** The slots of the history's array: each still holds its event's objects. */
    const slots = () => (s as unknown as { log: (StoreEvent | undefined)[] }).log.filter(Boolean).length;
    return { s, st, clock, slots };
  }

  it.each([
    // 30 turns of 100 creates, 1 s apart: only the last 10 s (11 turns) stay; the count bound is far.
    { bound: 'time', turns: 30, stepMs: 1000, historyMs: 10_000, logCapacity: 50_000, kept: 1100 },
    // The same at one instant: only the last 500 stay; the time bound is far.
    { bound: 'count', turns: 30, stepMs: 0, historyMs: 300_000, logCapacity: 500, kept: 500 },
  ])(
    'by $bound: 3,000 creates leave $kept events, the older ones released; resuming from before them is 410, from inside them replays',
    async ({ turns, stepMs, historyMs, logCapacity, kept }) => {
      const { s, st, clock, slots } = await clocked({ historyMs, logCapacity });
      const firstRv = s.resourceVersion;
      for (let turn = 0; turn < turns; turn++) {
        if (turn > 0) clock.now += stepMs;
        await Promise.all(
          Array.from({ length: 100 }, (_v, i) =>
            st.create(configMaps, 'v1', 'ns', configMap(`c${turn}-${i}`), ctx()),
          ),
        );
      }
      expect(s.historyLength).toBe(kept);
      expect(slots()).toBe(kept); // the forgotten events' objects are no longer held
      const oldest = s.oldestWatchableRv;
      expect(oldest).toBe(s.resourceVersion - kept);
      expect(s.eventsSince(firstRv, resourceKey(configMaps), 'ns')).toBeUndefined(); // 410 Expired
      const replay = s.eventsSince(oldest, resourceKey(configMaps), 'ns')!;
      expect(replay).toHaveLength(kept);
      expect(replay.at(-1)!.rv).toBe(s.resourceVersion);
    },
  );

  it('keeps every event of a watch window as long as there are fewer than the bounds', async () => {
    const { s, st, clock } = await clocked({ historyMs: 60_000, logCapacity: 100 });
    const from = s.resourceVersion;
    for (let i = 0; i < 50; i++) {
      clock.now += 500;
      await st.create(configMaps, 'v1', 'ns', configMap(`c${i}`), ctx());
    }
    expect(s.historyLength).toBe(50);
    expect(s.eventsSince(from, resourceKey(configMaps), 'ns')!.map((e) => e.object.metadata.name)).toEqual(
      Array.from({ length: 50 }, (_v, i) => `c${i}`),
    );
  });
});
