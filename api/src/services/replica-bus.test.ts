import { describe, expect, it, vi } from 'vitest';
import { channelFor, createReplicaBus, type Topic, type Transport } from './replica-bus.js';

/** An in-memory channel: every payload sent reaches every started transport, like NOTIFY. */
function fakeChannel(maxPayload = 7900) {
  const listeners = new Set<(payload: string) => void>();
  const resyncs: (() => void)[] = [];
  const sent: string[] = [];
  const transport = (): Transport => {
    let receive: ((payload: string) => void) | undefined;
    return {
      maxPayload,
      async start(onPayload, resync) {
        receive = onPayload;
        listeners.add(onPayload);
        resyncs.push(resync);
      },
      async send(payload) {
        sent.push(payload);
        for (const listener of listeners) listener(payload);
      },
      async close() {
        if (receive) listeners.delete(receive);
      },
    };
  };
  return { transport, sent, resyncAll: () => resyncs.forEach((r) => r()) };
}

/** A bus that listens, as createApp makes it. */
function live(...args: Parameters<typeof createReplicaBus>) {
  const bus = createReplicaBus(...args);
  void bus.listen();
  return bus;
}

const turn = () => new Promise((resolve) => setImmediate(resolve));
const settle = async () => {
  for (let i = 0; i < 5; i++) await turn();
};

function recorder(bus: ReturnType<typeof createReplicaBus>, topics: Topic[] = ['caches', 'notification']) {
  const got: [Topic, unknown][] = [];
  for (const topic of topics) bus.on(topic, (data) => void got.push([topic, data]));
  return got;
}

describe('replica bus fan-out', () => {
  it('reaches every other process, never the sender', async () => {
    const channel = fakeChannel();
    const [a, b, c] = ['a', 'b', 'c'].map((origin) => live(channel.transport(), { origin }));
    const [gotA, gotB, gotC] = [a!, b!, c!].map((bus) => recorder(bus));
    a!.publish('notification', { userId: 'u1', id: 7 });
    await settle();
    expect(gotA).toEqual([]);
    expect(gotB).toEqual([['notification', { userId: 'u1', id: 7 }]]);
    expect(gotC).toEqual(gotB);
  });

  it('sends what one event-loop turn published as one payload, cache names merged', async () => {
    const channel = fakeChannel();
    const a = live(channel.transport(), { origin: 'a' });
    const b = live(channel.transport(), { origin: 'b' });
    const got = recorder(b);
    a.publish('caches', ['callers']);
    a.publish('notification', { userId: 'u1', id: 1 });
    a.publish('caches', ['callers', 'me']);
    a.publish('caches', ['events']);
    await settle();
    expect(channel.sent).toHaveLength(1);
    expect(got).toEqual([
      ['caches', ['callers', 'me', 'events']],
      ['notification', { userId: 'u1', id: 1 }],
    ]);
    a.publish('caches', ['me']);
    await settle();
    expect(channel.sent).toHaveLength(2);
  });

  it.each([
    ['fits in one', 200, 3, 1],
    ['is split to stay within the payload limit', 120, 6, 3],
  ])('a turn of many messages %s', async (_case, maxPayload, count, payloads) => {
    const channel = fakeChannel(maxPayload);
    const a = live(channel.transport(), { origin: 'a' });
    const got = recorder(live(channel.transport(), { origin: 'b' }));
    for (let id = 0; id < count; id++) a.publish('notification', { userId: 'u', id });
    await settle();
    expect(channel.sent).toHaveLength(payloads);
    for (const p of channel.sent) expect(Buffer.byteLength(p)).toBeLessThanOrEqual(maxPayload);
    expect(got.map(([, data]) => (data as { id: number }).id)).toEqual([...Array(count).keys()]);
  });

  it('drops (and logs) a message larger than the limit, sending the rest', async () => {
    const channel = fakeChannel(100);
    const error = vi.fn();
    const a = live(channel.transport(), { origin: 'a', logger: { error } as never });
    const got = recorder(live(channel.transport(), { origin: 'b' }));
    a.publish('notification', { text: 'x'.repeat(200) });
    a.publish('caches', ['me']);
    await settle();
    expect(got).toEqual([['caches', ['me']]]);
    expect(error).toHaveBeenCalledWith(
      expect.objectContaining({ bytes: expect.any(Number) }),
      expect.any(String),
    );
  });

  it('keeps dispatching when a handler fails, and ignores unreadable payloads', async () => {
    const channel = fakeChannel();
    const a = live(channel.transport(), { origin: 'a' });
    const b = live(channel.transport(), {
      origin: 'b',
      logger: { error: vi.fn(), warn: vi.fn() } as never,
    });
    b.on('caches', () => {
      throw new Error('boom');
    });
    const got = recorder(b, ['caches']);
    await channel.transport().send('not json');
    a.publish('caches', ['me']);
    await settle();
    expect(got).toEqual([['caches', ['me']]]);
  });

  it("tells handlers the sender's origin, and when anything (its own too) was last heard", async () => {
    const channel = fakeChannel();
    const a = live(channel.transport(), { origin: 'a' });
    const b = live(channel.transport(), { origin: 'b' });
    expect([a.origin, b.origin]).toEqual(['a', 'b']);
    expect(a.lastHeard()).toBe(0);
    const got: [unknown, string][] = [];
    b.on('terminals', (data, origin) => void got.push([data, origin]));
    const before = Date.now();
    a.publish('terminals', { kind: 'opened', container: 'c1' });
    await settle();
    expect(got).toEqual([[{ kind: 'opened', container: 'c1' }, 'a']]);
    // The sender hears its own message (NOTIFY reaches every listener) without dispatching it.
    expect(a.lastHeard()).toBeGreaterThanOrEqual(before);
    expect(b.lastHeard()).toBeGreaterThanOrEqual(before);
  });

  it('hears nothing before listen() (a process that only builds the services never connects)', async () => {
    const channel = fakeChannel();
    const a = live(channel.transport(), { origin: 'a' });
    const idle = createReplicaBus(channel.transport(), { origin: 'b' });
    const got = recorder(idle);
    a.publish('caches', ['me']);
    await settle();
    expect(got).toEqual([]);
    await idle.listen();
    a.publish('caches', ['events']);
    await settle();
    expect(got).toEqual([['caches', ['events']]]);
  });

  it('runs the resync handlers when the transport says messages may have been lost', async () => {
    const channel = fakeChannel();
    const bus = live(channel.transport(), { origin: 'a' });
    const resync = vi.fn();
    bus.onResync(resync);
    channel.resyncAll();
    expect(resync).toHaveBeenCalledTimes(1);
  });

  it('sends what was published before close, nothing after', async () => {
    const channel = fakeChannel();
    const a = live(channel.transport(), { origin: 'a' });
    const got = recorder(live(channel.transport(), { origin: 'b' }));
    a.publish('caches', ['me']);
    await a.close();
    a.publish('caches', ['events']);
    await settle();
    expect(got).toEqual([['caches', ['me']]]);
  });

  it('without a transport (PGlite: one process) is not shared and sends nothing', async () => {
    const bus = createReplicaBus(null);
    expect(bus.shared).toBe(false);
    await bus.listen();
    bus.publish('caches', ['me']);
    await settle();
    await bus.close();
  });
});

describe('channelFor', () => {
  it.each([
    [undefined, 'sandflow_api'],
    ['public', 'sandflow_api'],
    [['t_abc_123'], 'sandflow_api_t_abc_123'],
    ['Tenant-A, public', 'sandflow_api_tenant_a'],
    [['x'.repeat(100)], `sandflow_api_${'x'.repeat(50)}`],
  ])('search path %j → %s', (searchPath, channel) => {
    expect(channelFor(searchPath)).toBe(channel);
  });
});
