import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { API_BASE } from './app.js';
import { ACCESS_COOKIE } from './http/route.js';
import type { RealtimeMessage } from './services/notifications.js';
import { servicesFor, type ApiDeps } from './services/index.js';

export const REALTIME_PATH = `${API_BASE}/notifications`;
/** The client's acknowledgement of each message (spec 1 §7.1). */
export const ACK = 'Ok';

interface Connection {
  socket: WebSocket;
  userId: string;
  /** Ids sent and not yet acknowledged, oldest first; each `Ok` settles the oldest. */
  pending: number[];
  /** Ids sent on this socket (the last SENT_MEMORY): one is never sent twice. */
  sent: Set<number>;
  alive: boolean;
}

const SENT_MEMORY = 1000;

/**
 * The realtime websocket at /api/v0/notifications. Authenticated on upgrade by the
 * access cookie, a Bearer header or `?token=` (browsers cannot set headers on a
 * websocket). A message stays undelivered until acknowledged with `Ok`, so a client
 * that reconnects receives everything it missed. Pings every heartbeat; a socket that
 * misses one pong is closed.
 */
export function attachRealtime(server: Server, deps: ApiDeps): { close(): void } {
  const services = servicesFor(deps);
  void services.bus.listen(); // notifications raised by other API processes
  const wss = new WebSocketServer({ noServer: true });
  const byUser = new Map<string, Set<Connection>>();

  const send = (connection: Connection, message: RealtimeMessage) => {
    if (connection.sent.has(message.id)) return;
    connection.sent.add(message.id);
    if (connection.sent.size > SENT_MEMORY) connection.sent.delete(connection.sent.values().next().value!);
    connection.pending.push(message.id);
    connection.socket.send(JSON.stringify(message));
  };

  /** What the socket has not been sent yet of the person's unacknowledged notifications. */
  async function catchUp(connection: Connection) {
    for (const missed of await services.notifications.undelivered(connection.userId))
      send(connection, missed);
  }

  services.realtime.publisher = {
    publish(userId, message) {
      for (const connection of byUser.get(userId) ?? []) send(connection, message);
    },
    connected: (userId) => byUser.has(userId),
    resync() {
      for (const connections of byUser.values())
        for (const connection of connections)
          catchUp(connection).catch((error: unknown) =>
            deps.logger.error({ err: error }, 'realtime catch-up failed'),
          );
    },
  };

  async function authenticate(req: IncomingMessage): Promise<string | null> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const header = req.headers.authorization;
    const cookie = (req.headers.cookie ?? '')
      .split(';')
      .map((c) => c.trim().split('='))
      .find(([name]) => name === ACCESS_COOKIE)?.[1];
    const token = header?.startsWith('Bearer ')
      ? header.slice(7)
      : (url.searchParams.get('token') ?? (cookie ? decodeURIComponent(cookie) : null));
    const claims = token ? await services.tokens.verifyAccessToken(token) : null;
    if (!claims) return null;
    const caller = await services.loadCaller(claims.userId, claims.organizationId, claims.issuedAt);
    return caller?.userId ?? null;
  }

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path !== REALTIME_PATH) return; // another websocket (terminal, logs) handles it
    authenticate(req)
      .then((userId) => {
        if (!userId) {
          socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
          return;
        }
        wss.handleUpgrade(req, socket, head, (ws) => void open(ws, userId));
      })
      .catch((error: unknown) => {
        deps.logger.error({ err: error }, 'realtime upgrade failed');
        socket.destroy();
      });
  };
  server.on('upgrade', onUpgrade);

  async function open(socket: WebSocket, userId: string) {
    const connection: Connection = { socket, userId, pending: [], sent: new Set(), alive: true };
    let connections = byUser.get(userId);
    if (!connections) byUser.set(userId, (connections = new Set()));
    connections.add(connection);
    socket.on('pong', () => (connection.alive = true));
    socket.on('message', (data) => {
      if (data.toString().trim() !== ACK) return;
      const id = connection.pending.shift();
      if (id !== undefined) void services.notifications.acknowledge(userId, id);
    });
    socket.on('close', () => {
      connections.delete(connection);
      if (connections.size === 0) byUser.delete(userId);
    });
    await catchUp(connection);
  }

  const heartbeat = setInterval(() => {
    for (const connections of byUser.values()) {
      for (const connection of connections) {
        if (!connection.alive) {
          connection.socket.terminate();
          continue;
        }
        connection.alive = false;
        connection.socket.ping();
      }
    }
  }, deps.config.heartbeatMs);
  heartbeat.unref();

  return {
    close() {
      clearInterval(heartbeat);
      server.off('upgrade', onUpgrade);
      for (const client of wss.clients) client.terminate();
      wss.close();
      services.realtime.publisher = undefined;
    },
  };
}
