import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Logger } from 'pino';

/**
 * Messages between the API processes (replicas) that share one PostgreSQL database, so
 * that what one process changes reaches the read caches and the realtime sockets of the
 * others. Over PostgreSQL LISTEN/NOTIFY; with PGlite (one process by construction) there
 * is nobody to tell and nothing is sent.
 *
 * A process acts on its own changes directly; `publish` tells only the others (each
 * message carries its origin, and a process ignores what it sent itself). Delivery is
 * best effort: when the listening connection is lost, the messages sent meanwhile are
 * missed, so `onResync` handlers run once it is back (empty the caches, resend what a
 * socket may have missed).
 */
export type Topic = 'caches' | 'notification' | 'terminals';

export interface ReplicaBus {
  /** False when no other process can exist (PGlite): publish does nothing. */
  readonly shared: boolean;
  /** This process's id on the bus: what other processes see as the origin of its messages. */
  readonly origin: string;
  /**
   * When a message (any, this process's own included: NOTIFY reaches the sender too) last
   * arrived; 0 before the first. A process that hears not even its own heartbeat is deaf.
   */
  lastHeard(): number;
  /**
   * Starts listening (createApp and attachRealtime call it; a process that only builds the
   * services, such as the OpenAPI generator, never connects). Idempotent; resolves once
   * listening (at once when not shared).
   */
  listen(): Promise<void>;
  publish(topic: Topic, data: unknown): void;
  /** `origin` is the sending process's id. */
  on(topic: Topic, handler: (data: unknown, origin: string) => void | Promise<void>): void;
  onResync(handler: () => void): void;
  close(): Promise<void>;
}

/** Carries payloads between processes; `start` begins listening. */
export interface Transport {
  /** Largest payload, in bytes. */
  maxPayload: number;
  start(receive: (payload: string) => void, resync: () => void): Promise<void>;
  send(payload: string): Promise<void>;
  close(): Promise<void>;
}

interface Envelope {
  /** Origin: the sending process. */
  o: string;
  /** Messages: [topic, data]. */
  m: [Topic, unknown][];
}

/**
 * The fan-out logic, whatever the transport: messages published during one event-loop turn
 * go out together (several envelopes when one would exceed the transport's payload limit),
 * `caches` messages merged into one; received envelopes from other origins are dispatched.
 */
export function createReplicaBus(
  transport: Transport | null,
  options: { logger?: Logger; origin?: string } = {},
): ReplicaBus {
  const origin = options.origin ?? randomUUID();
  const handlers = new Map<Topic, ((data: unknown, origin: string) => void | Promise<void>)[]>();
  let heardAt = 0;
  const resyncs: (() => void)[] = [];
  let queue: [Topic, unknown][] = [];
  let scheduled = false;
  let closed = false;
  let sending: Promise<void> = Promise.resolve();

  const dispatch = (payload: string) => {
    let envelope: Envelope;
    try {
      envelope = JSON.parse(payload) as Envelope;
    } catch {
      options.logger?.warn({ payload: payload.slice(0, 200) }, 'replica bus: unreadable message ignored');
      return;
    }
    heardAt = Date.now();
    if (envelope.o === origin || !Array.isArray(envelope.m)) return;
    for (const [topic, data] of envelope.m) {
      for (const handler of handlers.get(topic) ?? []) {
        Promise.resolve()
          .then(() => handler(data, envelope.o))
          .catch((error: unknown) =>
            options.logger?.error({ err: error, topic }, 'replica bus: handler failed'),
          );
      }
    }
  };

  /** The queued messages as payloads within the limit, caches merged into one message. */
  const envelopes = (messages: [Topic, unknown][], maxPayload: number): string[] => {
    const caches = new Set<string>();
    const others: [Topic, unknown][] = [];
    for (const [topic, data] of messages) {
      if (topic === 'caches') for (const name of data as string[]) caches.add(name);
      else others.push([topic, data]);
    }
    const all: [Topic, unknown][] = caches.size ? [['caches', [...caches]], ...others] : others;
    const payloads: string[] = [];
    let batch: [Topic, unknown][] = [];
    const encode = (m: [Topic, unknown][]) => JSON.stringify({ o: origin, m } satisfies Envelope);
    for (const message of all) {
      const tried = encode([...batch, message]);
      if (Buffer.byteLength(tried) <= maxPayload || batch.length === 0) {
        batch.push(message);
        continue;
      }
      payloads.push(encode(batch));
      batch = [message];
    }
    if (batch.length) payloads.push(encode(batch));
    return payloads.filter((p) => {
      if (Buffer.byteLength(p) <= maxPayload) return true;
      options.logger?.error({ bytes: Buffer.byteLength(p) }, 'replica bus: message too large, dropped');
      return false;
    });
  };

  const flush = () => {
    scheduled = false;
    if (!transport || closed) return;
    const messages = queue;
    queue = [];
    for (const payload of envelopes(messages, transport.maxPayload)) {
      sending = sending
        .then(() => transport.send(payload))
        .catch((error: unknown) => options.logger?.error({ err: error }, 'replica bus: send failed'));
    }
  };

  let listening: Promise<void> | undefined;

  return {
    shared: !!transport,
    origin,
    lastHeard: () => heardAt,
    listen() {
      if (!transport || closed) return Promise.resolve();
      if (!listening) {
        listening = transport.start(dispatch, () => {
          for (const resync of resyncs) resync();
        });
        listening.catch((error: unknown) =>
          options.logger?.error({ err: error }, 'replica bus: cannot listen yet, retrying'),
        );
      }
      return listening;
    },
    publish(topic, data) {
      if (!transport || closed) return;
      queue.push([topic, data]);
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    on(topic, handler) {
      handlers.set(topic, [...(handlers.get(topic) ?? []), handler]);
    },
    onResync(handler) {
      resyncs.push(handler);
    },
    async close() {
      if (closed) return;
      flush();
      closed = true;
      await sending;
      await transport?.close();
    },
  };
}

/** NOTIFY payloads must be shorter than 8000 bytes. */
const PG_MAX_PAYLOAD = 7900;

/**
 * One channel per database and schema: replicas of one deployment share it, test suites
 * (a schema each on one server) do not hear each other.
 */
export function channelFor(searchPath: unknown): string {
  const first = Array.isArray(searchPath) ? searchPath[0] : searchPath;
  const schema = typeof first === 'string' ? first.split(',')[0]!.trim() : '';
  const suffix = schema && schema !== 'public' ? `_${schema.toLowerCase().replace(/[^a-z0-9_]/g, '_')}` : '';
  return `sandflow_api${suffix}`.slice(0, 63);
}

interface PgClient {
  query(sql: string): Promise<unknown>;
  on(event: 'notification', listener: (n: { channel: string; payload?: string }) => void): void;
  on(event: 'error' | 'end', listener: (error?: Error) => void): void;
  removeAllListeners(): void;
  connection?: { stream?: { unref?: () => void } };
}

interface PgKnexClient {
  config: { client?: unknown; searchPath?: unknown };
  acquireRawConnection(): Promise<PgClient>;
  destroyRawConnection(connection: PgClient): Promise<void>;
}

/**
 * LISTEN on a connection of its own (outside the pool), NOTIFY through the pool; the
 * listening connection comes back after a loss, with a growing delay (0.5 s … 30 s).
 * Null unless `db` is a PostgreSQL server (knex client 'pg').
 */
export function postgresTransport(db: Knex, logger?: Logger): Transport | null {
  const client = db.client as unknown as PgKnexClient;
  if (client.config.client !== 'pg') return null;
  const channel = channelFor(client.config.searchPath);
  let connection: PgClient | undefined;
  let closed = false;
  let retryTimer: NodeJS.Timeout | undefined;
  let failures = 0;

  async function listen(receive: (payload: string) => void, onLost: () => void): Promise<void> {
    const conn = await client.acquireRawConnection();
    // The API's HTTP server keeps the process alive, never this connection alone.
    conn.connection?.stream?.unref?.();
    conn.on('notification', (n) => {
      if (n.channel === channel && n.payload) receive(n.payload);
    });
    let lost = false;
    const lose = (error?: Error) => {
      if (lost) return;
      lost = true;
      if (!closed) logger?.warn({ err: error }, 'replica bus: listening connection lost');
      conn.removeAllListeners();
      conn.on('error', () => {});
      void client.destroyRawConnection(conn).catch(() => {});
      if (connection === conn) connection = undefined;
      onLost();
    };
    conn.on('error', lose);
    conn.on('end', lose);
    try {
      await conn.query(`LISTEN "${channel}"`);
    } catch (error) {
      conn.removeAllListeners();
      conn.on('error', () => {});
      await client.destroyRawConnection(conn).catch(() => {});
      throw error;
    }
    if (closed) {
      conn.removeAllListeners();
      conn.on('error', () => {});
      await client.destroyRawConnection(conn).catch(() => {});
      return;
    }
    connection = conn;
    failures = 0;
  }

  return {
    maxPayload: PG_MAX_PAYLOAD,
    async start(receive, resync) {
      const reconnect = () => {
        if (closed) return;
        const delay = Math.min(30_000, 500 * 2 ** Math.min(failures, 6));
        failures++;
        retryTimer = setTimeout(() => {
          listen(receive, reconnect).then(
            () => {
              logger?.info({ channel }, 'replica bus: listening again');
              resync();
            },
            (error: unknown) => {
              logger?.warn({ err: error }, 'replica bus: reconnecting failed');
              reconnect();
            },
          );
        }, delay);
        retryTimer.unref();
      };
      try {
        await listen(receive, reconnect);
      } catch (error) {
        reconnect();
        throw error;
      }
    },
    async send(payload) {
      await db.raw('select pg_notify(?, ?)', [channel, payload]);
    },
    async close() {
      closed = true;
      clearTimeout(retryTimer);
      const conn = connection;
      connection = undefined;
      if (conn) {
        conn.removeAllListeners();
        conn.on('error', () => {});
        await client.destroyRawConnection(conn).catch(() => {});
      }
    },
  };
}
