import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { API_BASE } from './app.js';
import { DomainError } from './errors.js';
import { ACCESS_COOKIE } from './http/route.js';
import { servicesFor, type ApiDeps } from './services/index.js';
import type { StepRef } from './services/run-files.js';

/** `/log/{run}/{sandboxId}/{name}` (spec 2 §7), also under /api/v0; one segment is the sandbox terminal. */
export const RUN_LOG_PATH = new RegExp(`^(?:${API_BASE})?/log/([^/]{1,253})/([^/]{1,253})/([^/]{1,253})$`);
/** Lines sent first when the page does not say (`?tail=`). */
export const DEFAULT_TAIL = 1000;
/** The most lines one socket reaches back (the runner's tail bound): more is the download's job. */
export const MAX_LINES_BACK = 100_000;
const MAX_MORE = 10_000;
const FRAME_BYTES = 64 * 1024;
/** Stop reading while this much is waiting for a slow client. */
const HIGH_WATER = 4 * 1024 * 1024;
export const NO_LOG = 'No log found for sandbox';

function refuse(socket: Duplex, status: number, reason: string, message = '') {
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(message)}\r\n\r\n${message}`,
  );
}

/**
 * The run dashboard's log terminal. Protocol (every frame is a JSON object):
 * - the server sends `{"live": bool}` (whether the step still runs and will be followed), the last
 *   `?tail=` lines (default 1000, at most 100,000) as `{"log": text}` frames, then what the step
 *   prints while it runs, and `{"end": true}` once it is over (after the tail for a finished step).
 *   The socket stays open after `end` for `more`.
 * - the page may send `{"more": N}` (1–10,000) for the N lines before the first it has; the answer
 *   is `{"earlier": text, "complete": bool}` (`complete`: the start of the log, or the 100,000-line
 *   reach, is reached; the download has everything). While the step runs, lines printed during
 *   that request may be counted twice or skipped at the seam.
 * - `{"error": "No log found for sandbox"}` then a close when the log cannot be read.
 * Authenticated like the terminal socket; a run the caller may not see is refused (404) before
 * the upgrade.
 */
export function attachRunLogs(server: Server, deps: ApiDeps): { close(): void } {
  const services = servicesFor(deps);
  const wss = new WebSocketServer({ noServer: true, maxPayload: 4096 });

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

  async function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, url: URL, ids: string[]) {
    const caller = await callerOf(req, url);
    if (!caller) return refuse(socket, 401, 'Unauthorized');
    const tail = Number(url.searchParams.get('tail') ?? DEFAULT_TAIL);
    if (!Number.isInteger(tail) || tail < 0 || tail > MAX_LINES_BACK)
      return refuse(socket, 400, 'Bad Request', `tail: an integer from 0 to ${MAX_LINES_BACK}`);
    let ref: StepRef;
    try {
      const [run, sandboxId, name] = ids.map((s) => decodeURIComponent(s)) as [string, string, string];
      ref = await services.runFiles.step(caller, run, sandboxId, name);
    } catch (error) {
      if (error instanceof DomainError && error.kind === 'not_found')
        return refuse(socket, 404, 'Not Found', error.message);
      if (error instanceof DomainError && (error.kind === 'unavailable' || error.kind === 'bad_gateway'))
        return refuse(socket, 503, 'Service Unavailable', error.message);
      if (error instanceof URIError) return refuse(socket, 400, 'Bad Request', 'malformed path');
      throw error;
    }
    wss.handleUpgrade(req, socket, head, (ws) => void stream(ws, ref, tail));
  }

  async function stream(ws: WebSocket, ref: StepRef, tail: number) {
    const abort = new AbortController();
    ws.on('close', () => abort.abort());
    ws.on('error', () => abort.abort());
    const send = (message: object) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
    };
    /** Lines the page holds, counted from the end of the log as it was when they were read. */
    let held = 0;
    let asking = Promise.resolve();
    ws.on('message', (data) => {
      let n: unknown;
      try {
        n = (JSON.parse(String(data)) as { more?: unknown }).more;
      } catch {
        return;
      }
      if (typeof n !== 'number' || !Number.isInteger(n) || n < 1) return;
      asking = asking.then(() => earlier(Math.min(n, MAX_MORE))).catch(() => send({ error: NO_LOG }));
    });

    async function earlier(n: number) {
      const reach = Math.min(held + n, MAX_LINES_BACK);
      if (reach <= held) return send({ earlier: '', complete: true });
      const lines: string[] = [];
      for await (const e of await services.runFiles.logs(ref, { tailLines: reach, signal: abort.signal }))
        lines.push(e.content ?? '');
      const fresh = lines.slice(0, Math.max(0, lines.length - held));
      held += fresh.length;
      send({
        earlier: fresh.length ? `${fresh.join('\n')}\n` : '',
        complete: lines.length < reach || held >= MAX_LINES_BACK,
      });
    }

    try {
      let chunk = '';
      let timer: NodeJS.Timeout | undefined;
      const flush = async () => {
        clearTimeout(timer);
        timer = undefined;
        if (chunk) send({ log: chunk });
        chunk = '';
        while (ws.bufferedAmount > HIGH_WATER && !abort.signal.aborted)
          await new Promise((resolve) => setTimeout(resolve, 5));
      };
      const entries = await services.runFiles.logs(ref, {
        tailLines: tail,
        follow: ref.running,
        signal: abort.signal,
      });
      send({ live: ref.running });
      // argo-server sends the tail, then (following) each line as it is printed: frames of up to
      // 64 KiB, a line that arrives alone goes out within 20 ms.
      for await (const e of entries) {
        chunk += `${e.content ?? ''}\n`;
        held++;
        if (chunk.length >= FRAME_BYTES) await flush();
        else timer ??= setTimeout(() => void flush(), 20);
      }
      await flush();
      send({ end: true });
    } catch (error) {
      if (abort.signal.aborted) return;
      deps.logger.warn({ err: error, pod: ref.podName }, 'run log socket failed');
      send({ error: NO_LOG });
      ws.close(1011, NO_LOG);
    }
  }

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const match = RUN_LOG_PATH.exec(url.pathname);
    if (!match) return; // the terminal (one segment) or the realtime socket handles it
    upgrade(req, socket, head, url, match.slice(1)).catch((error: unknown) => {
      deps.logger.error({ err: error, path: url.pathname }, 'run log upgrade failed');
      if (!socket.destroyed) refuse(socket, 500, 'Internal Server Error');
    });
  };
  server.on('upgrade', onUpgrade);
  return {
    close() {
      server.off('upgrade', onUpgrade);
      for (const client of wss.clients) client.terminate();
      wss.close();
    },
  };
}
