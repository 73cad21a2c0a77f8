// `pods/exec` over WebSocket, the Kubernetes remote-command protocol (v5.channel.k8s.io and
// v4.channel.k8s.io): every message is one byte of channel then data — 0 stdin, 1 stdout, 2 stderr,
// 3 error (one Status JSON when the command ends, then the socket closes), 4 resize
// (`{"Width":w,"Height":h}`), and in v5 255 = a stream closed (the client closing stdin is EOF to
// the process). The socket closing ends the process; the Pod stopping ends the exec.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { StatusError, badRequest } from '../errors.js';
import { spawnExec, type ExecIo, type ExecProcess } from './exec-process.js';
import type { Kubelet } from './kubelet.js';

/** The protocols served, best first. */
export const EXEC_PROTOCOLS = ['v5.channel.k8s.io', 'v4.channel.k8s.io'];

const STDIN = 0;
const STDOUT = 1;
const STDERR = 2;
const ERROR = 3;
const RESIZE = 4;
const CLOSE = 255;

/** Bytes the socket may hold before the process's output waits, and where it goes on again. */
const HIGH_WATER = 4 << 20;
const LOW_WATER = 1 << 20;

/** The best protocol the client offers, if any is served. */
export function chooseProtocol(offered: string | string[] | undefined): string | undefined {
  const list = (Array.isArray(offered) ? offered.join(',') : (offered ?? '')).split(',').map((p) => p.trim());
  return EXEC_PROTOCOLS.find((p) => list.includes(p));
}

/** The Status of channel 3 for an exit code, as the kubelet writes it. */
export function exitStatus(command: string[], code: number): Record<string, unknown> {
  if (code === 0) return { metadata: {}, status: 'Success' };
  return {
    metadata: {},
    status: 'Failure',
    message: `command terminated with non-zero exit code: error executing command [${command.join(' ')}], exit code ${code}`,
    reason: 'NonZeroExitCode',
    details: { causes: [{ reason: 'ExitCode', message: String(code) }] },
  };
}

const flag = (q: URLSearchParams, name: string) => ['true', '1'].includes(q.get(name) ?? '');

const toBuffer = (data: RawData): Buffer =>
  Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);

export class ExecServer {
  private readonly wss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    handleProtocols: (protocols) => chooseProtocol([...protocols]) ?? false,
  });
  private readonly sessions = new Set<{ ws: WebSocket; proc: ExecProcess }>();

  constructor(
    private readonly kubelet: Kubelet,
    private readonly log: Logger,
  ) {}

  /**
   * Upgrades an exec request into the Pod's container; throws the StatusError to answer instead
   * when the request, the Pod or the container does not allow it.
   */
  upgrade(
    req: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    namespace: string,
    name: string,
    url: URL,
  ): void {
    const q = url.searchParams;
    const command = q.getAll('command');
    if (command.length === 0) throw badRequest('you must specify at least 1 command');
    const io: ExecIo = {
      stdin: flag(q, 'stdin'),
      stdout: flag(q, 'stdout'),
      stderr: flag(q, 'stderr'),
      tty: flag(q, 'tty'),
    };
    if (!io.stdin && !io.stdout && !io.stderr)
      throw badRequest('you must specify at least 1 of stdin, stdout, stderr');
    if (String(req.headers.upgrade ?? '').toLowerCase() !== 'websocket')
      throw badRequest(
        'unable to upgrade connection: only WebSocket (v5.channel.k8s.io, v4.channel.k8s.io) is served',
      );
    if (!chooseProtocol(req.headers['sec-websocket-protocol']))
      throw new StatusError(
        400,
        'BadRequest',
        `unable to upgrade connection: none of the offered subprotocols is served; use one of ${EXEC_PROTOCOLS.join(', ')}`,
      );
    const target = this.kubelet.execTarget(namespace, name, q.get('container') ?? undefined);
    this.wss.handleUpgrade(req, socket, head, (ws) =>
      this.session(ws, target, command, io, `${namespace}/${name}`),
    );
  }

  private session(
    ws: WebSocket,
    target: ReturnType<Kubelet['execTarget']>,
    command: string[],
    io: ExecIo,
    pod: string,
  ): void {
    let drained: (() => void)[] = [];
    const send = (channel: number, data: Buffer | string): boolean => {
      if (ws.readyState !== ws.OPEN) return true;
      const body = typeof data === 'string' ? Buffer.from(data) : data;
      ws.send(Buffer.concat([Buffer.from([channel]), body]), () => {
        if (drained.length === 0 || ws.bufferedAmount > LOW_WATER) return;
        const listeners = drained;
        drained = [];
        for (const f of listeners) f();
      });
      return ws.bufferedAmount < HIGH_WATER;
    };
    let proc: ExecProcess;
    try {
      proc = spawnExec(target, command, io, {
        stdout: (d) => send(STDOUT, d),
        stderr: (d) => send(STDERR, d),
        onDrain: (listener) => drained.push(listener),
      });
    } catch (e) {
      const status = {
        metadata: {},
        status: 'Failure',
        reason: 'InternalError',
        message: (e as Error).message,
      };
      send(ERROR, JSON.stringify(status));
      ws.close(1000);
      return;
    }
    const session = { ws, proc };
    this.sessions.add(session);
    const unhook = target.onStop(() => proc.kill());
    const v5 = ws.protocol === EXEC_PROTOCOLS[0];
    ws.on('message', (raw) => {
      const data = toBuffer(raw);
      if (data.length === 0) return;
      const rest = data.subarray(1);
      switch (data[0]) {
        case STDIN:
          // Stdin waits (the socket stops reading) while the process does not take it.
          if (io.stdin && !proc.write(rest)) {
            ws.pause();
            proc.onStdinDrain(() => ws.resume());
          }
          return;
        case RESIZE: {
          try {
            // Go decodes the field names case-insensitively; client-node sends them in lower case.
            const size = JSON.parse(rest.toString('utf8')) as Record<string, unknown>;
            const width = Number(size.Width ?? size.width);
            const height = Number(size.Height ?? size.height);
            if (width > 0 && height > 0) proc.resize(width, height);
          } catch {
            // not a size: ignored, as the kubelet does
          }
          return;
        }
        case CLOSE:
          if (v5 && rest[0] === STDIN) proc.endStdin();
          return;
        default:
          return;
      }
    });
    ws.on('close', () => proc.kill());
    ws.on('error', (e) => this.log.debug({ err: e, pod }, 'kubelet: exec socket error'));
    void proc.exited.then((code) => {
      unhook();
      this.sessions.delete(session);
      send(ERROR, JSON.stringify(exitStatus(command, code)));
      if (ws.readyState === ws.OPEN) ws.close(1000);
    });
  }

  /** Ends every exec (kube-lite shutting down). */
  close(): void {
    for (const { ws, proc } of this.sessions) {
      proc.kill();
      ws.terminate();
    }
    this.sessions.clear();
    this.wss.close();
  }
}
