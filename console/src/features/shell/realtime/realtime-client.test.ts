import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeWebSocket, installFakeWebSocket } from './fake-websocket';
import { RealtimeClient, type RealtimeClientOptions, type RealtimeStatus } from './realtime-client';

const URL = 'ws://console.test/api/v0/notifications';

function setup(extra: Partial<RealtimeClientOptions> = {}) {
  const statuses: RealtimeStatus[] = [];
  const messages: unknown[] = [];
  const onDown = vi.fn();
  const client = new RealtimeClient({
    url: URL,
    onStatus: (s) => statuses.push(s),
    onMessage: (m) => messages.push(m),
    onDown,
    backoff: (attempt) => 1000 * 2 ** attempt,
    ...extra,
  });
  return { client, statuses, messages, onDown };
}

describe('realtime client', () => {
  beforeEach(() => {
    installFakeWebSocket();
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('goes connecting → connected, and closed with code 1000 when closed', () => {
    const { client, statuses } = setup();
    client.connect();
    expect(FakeWebSocket.latest().url).toBe(URL);
    expect(statuses).toEqual(['connecting']);
    FakeWebSocket.latest().serverOpens();
    expect(statuses).toEqual(['connecting', 'connected']);
    client.close();
    expect(FakeWebSocket.latest().closedWith).toBe(1000);
    expect(statuses).toEqual(['connecting', 'connected', 'closed']);
    vi.advanceTimersByTime(60_000);
    expect(FakeWebSocket.instances).toHaveLength(1);
  });

  it('answers every message with Ok, even one it cannot read', () => {
    const { client, messages } = setup();
    client.connect();
    const socket = FakeWebSocket.latest();
    socket.serverOpens();
    const message = {
      id: 7,
      message_title: 'Run',
      message_type: 'success',
      message_text: 'Done',
      message_data: '',
    };
    socket.serverSends(message);
    socket.serverSends('not json');
    expect(socket.sent).toEqual(['Ok', 'Ok']);
    expect(messages).toEqual([message, null]);
  });

  it('reconnects with backoff after an unexpected close, staying connecting meanwhile', async () => {
    const prepareReconnect = vi.fn(() => Promise.resolve());
    const { client, statuses, onDown } = setup({ prepareReconnect });
    client.connect();
    FakeWebSocket.latest().serverOpens();
    FakeWebSocket.latest().drops();
    expect(onDown).toHaveBeenCalledTimes(1);
    expect(statuses.at(-1)).toBe('connecting');

    await vi.advanceTimersByTimeAsync(999);
    expect(FakeWebSocket.instances).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(prepareReconnect).toHaveBeenCalledTimes(1);
    expect(FakeWebSocket.instances).toHaveLength(2);

    // The retry fails too: the outage is reported once, the next wait is twice as long.
    FakeWebSocket.latest().drops();
    expect(onDown).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1999);
    expect(FakeWebSocket.instances).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(FakeWebSocket.instances).toHaveLength(3);
    expect(statuses).toEqual(['connecting', 'connected', 'connecting']);

    FakeWebSocket.latest().serverOpens();
    expect(statuses.at(-1)).toBe('connected');
    // A later outage is a new one: reported again, and the backoff starts over.
    FakeWebSocket.latest().drops();
    expect(onDown).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(1000);
    expect(FakeWebSocket.instances).toHaveLength(4);
  });

  it('after its retries shows closed but keeps trying quietly at the longest wait; a click tries at once', async () => {
    const { client, statuses, onDown } = setup({ maxRetries: 2, backoff: (attempt) => 10 * 2 ** attempt });
    client.connect();
    FakeWebSocket.latest().drops();
    await vi.advanceTimersByTimeAsync(10);
    FakeWebSocket.latest().drops();
    await vi.advanceTimersByTimeAsync(20);
    FakeWebSocket.latest().drops();
    expect(FakeWebSocket.instances).toHaveLength(3);
    expect(statuses).toEqual(['connecting', 'closed']);

    // Quiet attempts every backoff(maxRetries) = 40 ms: the dot stays closed while they fail.
    await vi.advanceTimersByTimeAsync(39);
    expect(FakeWebSocket.instances).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(1);
    expect(FakeWebSocket.instances).toHaveLength(4);
    FakeWebSocket.latest().drops();
    await vi.advanceTimersByTimeAsync(40);
    expect(FakeWebSocket.instances).toHaveLength(5);
    expect(statuses).toEqual(['connecting', 'closed']);
    expect(onDown).toHaveBeenCalledTimes(1);
    // The platform is back: the quiet attempt opens and the dot turns connected by itself.
    FakeWebSocket.latest().serverOpens();
    expect(statuses).toEqual(['connecting', 'closed', 'connected']);

    // A new outage starts over with the normal retries; the dot's click while closed tries at once.
    FakeWebSocket.latest().drops();
    expect(onDown).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(10);
    FakeWebSocket.latest().drops();
    await vi.advanceTimersByTimeAsync(20);
    FakeWebSocket.latest().drops();
    expect(statuses.at(-1)).toBe('closed');
    const before = FakeWebSocket.instances.length;
    client.reconnect();
    expect(FakeWebSocket.instances).toHaveLength(before + 1);
    expect(statuses.at(-1)).toBe('connecting');
    FakeWebSocket.latest().serverOpens();
    expect(statuses.at(-1)).toBe('connected');
  });

  it('a click during a quiet attempt shows connecting and does not open a second socket', async () => {
    const { client, statuses } = setup({ maxRetries: 0, backoff: () => 10 });
    client.connect();
    FakeWebSocket.latest().drops();
    expect(statuses.at(-1)).toBe('closed');
    await vi.advanceTimersByTimeAsync(10);
    expect(FakeWebSocket.instances).toHaveLength(2);
    expect(statuses.at(-1)).toBe('closed');
    client.reconnect();
    expect(FakeWebSocket.instances).toHaveLength(2);
    expect(statuses.at(-1)).toBe('connecting');
    FakeWebSocket.latest().serverOpens();
    expect(statuses.at(-1)).toBe('connected');
  });

  it('does not retry once closed on purpose, even if a retry was waiting', async () => {
    const { client, statuses } = setup();
    client.connect();
    FakeWebSocket.latest().drops();
    client.close();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(FakeWebSocket.instances).toHaveLength(1);
    expect(statuses.at(-1)).toBe('closed');
  });
});
