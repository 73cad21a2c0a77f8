import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { API_BASE } from './app.js';
import { DomainError } from './errors.js';
import { attachRunLogs } from './log-socket.js';
import { ACCESS_COOKIE } from './http/route.js';
import { servicesFor, type ApiDeps } from './services/index.js';
import { DEFAULT_TERMINAL_SIZE } from './services/containers.js';

/**
 * The terminal socket of the sandbox page: `/log/{containerId}` as spec 1 §7.2 names it, and
 * the same under /api/v0 (what the console's dev proxy forwards).
 */
const TERMINAL_PATH = new RegExp(`^(?:${API_BASE})?/log/([A-Za-z0-9][\\w.-]{0,127})$`);
const MAX_COLS = 1000;
const MAX_ROWS = 500;

function refuse(socket: Duplex, status: number, reason: string, message = '') {
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(message)}\r\n\r\n${message}`,
  );
}

/** `?cols=&rows=` when both are sane; otherwise the last size the page posted, or the default. */
function sizeOf(url: URL): { cols: number; rows: number } | undefined | 'invalid' {
  const cols = url.searchParams.get('cols');
  const rows = url.searchParams.get('rows');
  if (cols === null && rows === null) return undefined;
  const c = Number(cols ?? DEFAULT_TERMINAL_SIZE.cols);
  const r = Number(rows ?? DEFAULT_TERMINAL_SIZE.rows);
  if (!Number.isInteger(c) || !Number.isInteger(r) || c < 1 || r < 1 || c > MAX_COLS || r > MAX_ROWS)
    return 'invalid';
  return { cols: c, rows: r };
}

/**
 * The builder's shells over WebSockets, in xterm's attach protocol: what the page sends is typed
 * into the shell as is, what the shell prints is sent back as text. Resizing is `POST /terminal`
 * (a control message in the same stream could be typed text). Authenticated like the realtime
 * socket (access cookie, Bearer header or `?token=`); only the container's owner gets a shell,
 * anyone else a 404. A container whose last socket has been closed for the grace period stops;
 * in cluster mode that is its last socket on any API replica (services/containers.ts tells the
 * others on the replica bus when a container's terminals open and close here).
 * `/log/{run}/{sandboxId}/{name}` (three segments) is a run's log: attached here too (log-socket.ts).
 */
export function attachTerminal(server: Server, deps: ApiDeps): { close(): void } {
  const services = servicesFor(deps);
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });

  async function callerOf(req: IncomingMessage, url: URL) {
    const header = req.headers.authorization;
    const cookie = (req.headers.cookie ?? '')
      .split(';')
      .map((c) => c.trim().split('='))
      .find(([name]) => name === ACCESS_COOKIE)?.[1];
    const token = header?.startsWith('Bearer ')
      ? header.slice(7)
      : (url.searchParams.get('token') ?? (cookie ? decodeURIComponent(cookie) : null));
    const claims = token ? await services.tokens.verifyAccessToken(token) : null;
    return claims ? services.loadCaller(claims.userId, claims.organizationId, claims.issuedAt) : null;
  }

  async function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, url: URL, id: string) {
    const caller = await callerOf(req, url);
    if (!caller) return refuse(socket, 401, 'Unauthorized');
    const size = sizeOf(url);
    if (size === 'invalid')
      return refuse(socket, 400, 'Bad Request', `cols, rows: integers from 1 to ${MAX_COLS} and ${MAX_ROWS}`);
    let shell;
    try {
      shell = await services.containers.openShell(caller, id, size);
    } catch (error) {
      if (error instanceof DomainError && error.kind === 'not_found')
        return refuse(socket, 404, 'Not Found', error.message);
      if (error instanceof DomainError && error.kind === 'unavailable')
        return refuse(socket, 503, 'Service Unavailable', error.message);
      throw error;
    }
    // A client gone before the handshake completes never reaches the callback below.
    const abandoned = () => services.containers.closeShell(id, shell);
    socket.once('close', abandoned);
    wss.handleUpgrade(req, socket, head, (ws: WebSocket) => {
      socket.off('close', abandoned);
      let closed = false;
      const close = () => {
        if (closed) return;
        closed = true;
        services.containers.closeShell(id, shell);
      };
      shell.onData((data) => {
        if (ws.readyState === ws.OPEN) ws.send(data);
      });
      shell.onExit((code) => {
        close();
        ws.close(1000, `shell exited with ${code}`);
      });
      ws.on('message', (data, isBinary) => {
        const bytes = Array.isArray(data)
          ? Buffer.concat(data)
          : Buffer.isBuffer(data)
            ? data
            : Buffer.from(data);
        shell.write(isBinary ? bytes : bytes.toString('utf8'));
      });
      ws.on('close', close);
      ws.on('error', close);
    });
  }

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const id = TERMINAL_PATH.exec(url.pathname)?.[1];
    if (!id) return; // another websocket (realtime) handles it
    upgrade(req, socket, head, url, id).catch((error: unknown) => {
      deps.logger.error({ err: error, container: id }, 'terminal upgrade failed');
      if (!socket.destroyed) refuse(socket, 500, 'Internal Server Error');
    });
  };
  server.on('upgrade', onUpgrade);
  const runLogs = attachRunLogs(server, deps);

  return {
    close() {
      runLogs.close();
      server.off('upgrade', onUpgrade);
      for (const client of wss.clients) client.terminate();
      wss.close();
    },
  };
}
