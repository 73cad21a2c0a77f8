// pods/exec for the builder: a command run to its end ({ stdout, stderr, exitCode }), and an
// interactive shell under a TTY. client-node's Exec carries the streams; what it lacks is added
// here: stdin sent no faster than the socket drains, stdout that pauses the socket while its reader
// is behind, the exit code read from the final Status, and resizes through its terminal size queue
// (a stdout with `rows`/`columns` that emits 'resize').
import { once } from 'node:events';
import { PassThrough, Writable, type Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { Exec, type KubeConfig, type V1Status } from '@kubernetes/client-node';
import type { BuilderShell } from '@sandflow/images';
import type WebSocket from 'ws';

export interface ExecTarget {
  namespace: string;
  pod: string;
  container: string;
}

export interface ExecResult {
  stdout: Buffer;
  stderr: string;
  exitCode: number;
}

/** A `sh -c` script (with its arguments) run to its end in a builder container. */
export type RunScript = (
  script: string,
  args?: string[],
  io?: { stdin?: Readable; stdout?: Sink; signal?: AbortSignal },
) => Promise<ExecResult>;

/** The exit code a Status reports, or an Error for a Status that is not about the command's exit. */
export function exitCodeOf(status: V1Status): number | Error {
  if (status.status === 'Success') return 0;
  const cause = status.details?.causes?.find((c) => c.reason === 'ExitCode');
  if (status.reason === 'NonZeroExitCode' && cause?.message && /^\d+$/.test(cause.message))
    return Number(cause.message);
  return new Error(status.message ?? status.reason ?? 'the command failed');
}

/** How many bytes may wait in the socket before stdin waits for it to drain. */
const HIGH_WATER = 1 << 20;

/** Writes `from` into the exec's stdin without letting the socket buffer grow past HIGH_WATER. */
async function pump(from: Readable, to: PassThrough, ws: WebSocket): Promise<void> {
  for await (const chunk of from) {
    while (ws.bufferedAmount > HIGH_WATER && ws.readyState === ws.OPEN) {
      await new Promise((r) => setTimeout(r, 5));
    }
    if (ws.readyState !== ws.OPEN) throw new Error('the exec connection closed while sending');
    to.write(chunk as Buffer);
  }
  to.end();
}

/** Hands the socket's stdout to `sink`, pausing the socket while the sink is full. */
export interface Sink {
  write(chunk: Buffer): boolean;
  once(event: 'drain', listener: () => void): unknown;
}

class Forward extends Writable {
  ws: WebSocket | undefined;
  constructor(private readonly sink: Sink) {
    super();
  }
  override _write(chunk: Buffer, _enc: BufferEncoding, done: (error?: Error | null) => void): void {
    if (this.sink.write(chunk)) done();
    else {
      this.ws?.pause();
      this.sink.once('drain', () => {
        this.ws?.resume();
        done();
      });
    }
  }
}

/**
 * Runs `command` in the container to its end. `stdin` is sent then closed (the v5 protocol's close
 * frame: kube-apiserver 1.30+); `stdout`, when given, receives the output instead of the result.
 */
export async function execCommand(
  kc: KubeConfig,
  target: ExecTarget,
  command: string[],
  options: { stdin?: Readable; stdout?: Sink; timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<ExecResult> {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const forward = options.stdout ? new Forward(options.stdout) : undefined;
  const stdout =
    forward ??
    new Writable({
      write(chunk: Buffer, _enc, done) {
        out.push(chunk);
        done();
      },
    });
  const stderr = new Writable({
    write(chunk: Buffer, _enc, done) {
      err.push(chunk);
      done();
    },
  });
  const stdin = options.stdin ? new PassThrough() : null;
  let status: V1Status | undefined;
  const ws = (await new Exec(kc).exec(
    target.namespace,
    target.pod,
    target.container,
    command,
    stdout,
    stderr,
    stdin,
    false,
    (s) => (status = s),
  )) as unknown as WebSocket;
  if (forward) forward.ws = ws;
  const abort = () => ws.close();
  options.signal?.addEventListener('abort', abort);
  if (options.signal?.aborted) abort();
  const what = command.join(' ').slice(0, 120);
  const closed = new Promise<void>((resolve) => {
    if (ws.readyState === ws.CLOSED) resolve();
    else ws.once('close', () => resolve());
  });
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    if (options.timeoutMs) timer = setTimeout(() => resolve('timeout'), options.timeoutMs);
  });
  const sending = options.stdin && stdin ? pump(options.stdin, stdin, ws) : Promise.resolve();
  try {
    const [ended] = await Promise.all([
      Promise.race([closed, timedOut]),
      sending.catch((error: unknown) => {
        ws.close();
        throw error;
      }),
    ]);
    if (ended === 'timeout') {
      ws.close();
      throw new Error(`${what} did not finish within ${options.timeoutMs} ms`);
    }
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', abort);
  }
  if (options.signal?.aborted) throw new Error(`${what} was stopped`, { cause: options.signal.reason });
  if (forward) {
    // client-node ends stdout when the Status arrives; every chunk has then reached the sink.
    if (!forward.writableEnded) forward.end();
    if (!forward.writableFinished) await once(forward, 'finish');
  }
  const stderrText = Buffer.concat(err).toString('utf8');
  if (!status)
    throw new Error(
      `the exec connection closed without an exit status${stderrText ? `: ${stderrText}` : ''}`,
    );
  const code = exitCodeOf(status);
  if (code instanceof Error) throw code;
  return { stdout: Buffer.concat(out), stderr: stderrText, exitCode: code };
}

/** A terminal's output: what client-node's Exec reads the terminal size from. */
class TerminalOut extends Writable {
  rows: number;
  columns: number;
  private readonly decoder = new StringDecoder('utf8');
  readonly dataListeners = new Set<(data: string) => void>();
  constructor(size: { cols: number; rows: number }) {
    super();
    this.rows = size.rows;
    this.columns = size.cols;
  }
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    const text = this.decoder.write(chunk);
    if (text) for (const l of this.dataListeners) l(text);
    done();
  }
  setSize(cols: number, rows: number) {
    this.columns = Math.max(1, Math.floor(cols));
    this.rows = Math.max(1, Math.floor(rows));
    this.emit('resize');
  }
}

/** Exit code reported when the connection ends without the command's status (closed, or lost). */
export const LOST_EXIT_CODE = 255;

/** An interactive command under a TTY (stderr is the terminal's too). */
export async function execShell(
  kc: KubeConfig,
  target: ExecTarget,
  command: string[],
  size: { cols: number; rows: number },
): Promise<BuilderShell & { readonly exited: Promise<number> }> {
  const out = new TerminalOut(size);
  const input = new PassThrough();
  let status: V1Status | undefined;
  const ws = (await new Exec(kc).exec(
    target.namespace,
    target.pod,
    target.container,
    command,
    out,
    null,
    input,
    true,
    (s) => (status = s),
  )) as unknown as WebSocket;
  const exited = new Promise<number>((resolve) => {
    const done = () => {
      const code = status ? exitCodeOf(status) : LOST_EXIT_CODE;
      resolve(typeof code === 'number' ? code : LOST_EXIT_CODE);
    };
    if (ws.readyState === ws.CLOSED) done();
    else ws.once('close', done);
  });
  let open = true;
  void exited.then(() => (open = false));
  return {
    exited,
    write: (data) => {
      if (open) input.write(typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
    },
    resize: (cols, rows) => {
      if (open) out.setSize(cols, rows);
    },
    onData: (listener) => {
      out.dataListeners.add(listener);
    },
    onExit: (listener) => {
      void exited.then(listener);
    },
    close: () => {
      if (open) ws.close();
    },
  };
}
