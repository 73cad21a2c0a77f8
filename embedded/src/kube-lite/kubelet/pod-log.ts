// Container logs as a CRI runtime keeps them, and `pods/log` served from them as the kubelet does.
//
// Storage: one file per run of a container (`logs/<container>/<restartCount>.log`, as the kubelet's
// `/var/log/pods/.../<container>/<restartCount>.log`), one record per line in the CRI format
// `<RFC3339Nano> <stream> <P|F> <text>\n`: F ends a line, P is a piece of a line longer than 16 KiB
// (the rest follows in the next records); what is left without "\n" when the container ends is
// written as F, as containerd does (so `kubectl logs` shows it with a "\n"). The container's stdout
// and stderr share one pipe (container-process.ts) so that their lines keep the order they were
// written in: the stream field therefore always says `stdout`.
//
// Serving: `tailLines` counts records from the end, then `sinceSeconds`/`sinceTime` skip older
// records, `timestamps` prefixes each line with its time (RFC3339 with 9 digits, UTC), `limitBytes`
// ends the output (a follow too) once that many bytes went out, the timestamps counted, as the
// kubelet's logWriter does. `follow` keeps reading until the run's writer ends (the container
// exited and its last output is in the file, or the Pod was deleted) or the client goes away.
import fs from 'node:fs';
import type { ContainerStatus } from './container-status.js';
import { StatusError, badRequest, invalid } from '../errors.js';
import type { FieldError } from '../types.js';

/** containerd's maxContainerLogLineSize: a longer line is stored as P records of this size. */
export const MAX_RECORD = 16 * 1024;
const BLOCK = 64 * 1024;
const NL = 0x0a;

let lastNs = 0n;

/**
 * Now in nanoseconds since the epoch: the wall clock at the process's start plus the monotonic
 * clock since, never the same value twice, so the records of a file never go back in time.
 */
export function nowNs(): bigint {
  const ns = BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6));
  lastNs = ns > lastNs ? ns : lastNs + 1n;
  return lastNs;
}

/** `2026-11-24T07:50:17.123456789Z`: the kubelet's timeFormatOut (RFC3339, 9 digits), in UTC. */
export function formatNs(ns: bigint): string {
  const iso = new Date(Number(ns / 1_000_000n)).toISOString();
  return `${iso.slice(0, 19)}.${String(ns % 1_000_000_000n).padStart(9, '0')}Z`;
}

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** Nanoseconds since the epoch of an RFC3339 time (Go's time.RFC3339, fraction allowed); undefined if it is none. */
export function parseRfc3339(text: string): bigint | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > days || hour > 23 || minute > 59 || second > 59)
    return undefined;
  let offset = 0;
  if (!m[8]) {
    const [oh, om] = [Number(m[10]), Number(m[11])];
    if (oh > 23 || om > 59) return undefined;
    offset = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const ms = Date.UTC(year, month - 1, day, hour, minute, second) - offset * 60_000;
  const fraction = BigInt((m[7] ?? '').slice(0, 9).padEnd(9, '0'));
  return BigInt(ms) * 1_000_000n + fraction;
}

// ---------------------------------------------------------------------------------------------
// Writing

/** The files being written now in this process, by path: a follower reads on while one is here. */
const writers = new Map<string, ContainerLog>();

/** How many follows are waiting for more output, over every log file (for the tests: none leak). */
export function logFollowers(): number {
  let n = 0;
  for (const w of writers.values()) n += w.waiting;
  return n;
}

/**
 * The log file of one run of a container, written as the bytes of its stdout/stderr pipe arrive.
 * Followers are woken by the writer itself rather than by fs.watch or a poll: the writer is in this
 * process, so it knows the moment a record is in the file (no inotify watch per follower, no timer,
 * no delay), and when the run ended.
 */
export class ContainerLog {
  private readonly fd: number;
  private partial: Buffer[] = [];
  private partialBytes = 0;
  private ended = false;
  private readonly waiters = new Set<() => void>();

  constructor(readonly path: string) {
    this.fd = fs.openSync(path, 'a');
    writers.set(path, this);
  }

  get waiting(): number {
    return this.waiters.size;
  }

  /** Bytes from the container's pipe: every complete line (or 16 KiB piece) becomes a record. */
  write(chunk: Buffer): void {
    if (this.ended) return;
    const records: Buffer[] = [];
    let from = 0;
    for (;;) {
      const nl = chunk.indexOf(NL, from);
      const end = nl < 0 ? chunk.length : nl;
      let piece = chunk.subarray(from, end);
      while (this.partialBytes + piece.length > MAX_RECORD) {
        const take = MAX_RECORD - this.partialBytes;
        records.push(this.record('P', [...this.partial, piece.subarray(0, take)]));
        this.partial = [];
        this.partialBytes = 0;
        piece = piece.subarray(take);
      }
      if (nl < 0) {
        if (piece.length) {
          this.partial.push(Buffer.from(piece));
          this.partialBytes += piece.length;
        }
        break;
      }
      records.push(this.record('F', [...this.partial, piece]));
      this.partial = [];
      this.partialBytes = 0;
      from = nl + 1;
    }
    if (records.length) {
      fs.writeSync(this.fd, Buffer.concat(records));
      this.wake();
    }
  }

  /** A message of kube-lite's own, as a line of the log (a container that could not start). */
  note(text: string): void {
    this.write(Buffer.from(`${text}\n`));
  }

  /** The pipe closed: what is left becomes an F record, the file is closed and followers finish. */
  end(): void {
    if (this.ended) return;
    if (this.partialBytes > 0) fs.writeSync(this.fd, this.record('F', this.partial));
    this.partial = [];
    this.ended = true;
    fs.closeSync(this.fd);
    if (writers.get(this.path) === this) writers.delete(this.path);
    this.wake();
  }

  /** Resolves at the next record written, at the end of the run, or when `signal` aborts. */
  changed(signal: AbortSignal): Promise<void> {
    if (this.ended || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.waiters.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      this.waiters.add(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  private record(tag: 'P' | 'F', parts: Buffer[]): Buffer {
    return Buffer.concat([Buffer.from(`${formatNs(nowNs())} stdout ${tag} `), ...parts, Buffer.from('\n')]);
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
  }
}

// ---------------------------------------------------------------------------------------------
// Options

export interface LogOptions {
  container: string | undefined;
  follow: boolean;
  previous: boolean;
  timestamps: boolean;
  tailLines: number | undefined;
  limitBytes: number | undefined;
  /** Records older than this (ns since the epoch) are left out. */
  since: bigint | undefined;
}

const INT64_MAX = 2n ** 63n - 1n;

/** Go's query conversion of a bool: absent is false, "0", "f" and "false" (any case) too, anything else true. */
function flag(q: URLSearchParams, name: string): boolean {
  const v = q.get(name);
  return v !== null && !['0', 'f', 'false'].includes(v.toLowerCase());
}

/** An int64 parameter (strconv.ParseInt): a 400 naming it when it is none. */
function int64(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null) return undefined;
  if (!/^[+-]?\d+$/.test(v))
    throw badRequest(
      `${name}: Invalid value: ${JSON.stringify(v)}: strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`,
    );
  const n = BigInt(v);
  if (n > INT64_MAX || n < -INT64_MAX - 1n)
    throw badRequest(
      `${name}: Invalid value: ${JSON.stringify(v)}: strconv.ParseInt: parsing ${JSON.stringify(v)}: value out of range`,
    );
  return Number(n);
}

/**
 * The PodLogOptions of a `pods/log` query, as kube-apiserver decodes and validates them: a value
 * that is not of its type is a 400 naming the parameter; ValidatePodLogOptions' failures a 422
 * Invalid (`PodLogOptions "<pod>" is invalid: sinceSeconds: Invalid value: 0: must be greater than 0`).
 */
export function parseLogOptions(pod: string, q: URLSearchParams, now: () => bigint = nowNs): LogOptions {
  const tailLines = int64(q, 'tailLines');
  const limitBytes = int64(q, 'limitBytes');
  const sinceSeconds = int64(q, 'sinceSeconds');
  const sinceTimeText = q.get('sinceTime') ?? '';
  let sinceTime: bigint | undefined;
  if (sinceTimeText !== '' && sinceTimeText !== 'null') {
    sinceTime = parseRfc3339(sinceTimeText);
    if (sinceTime === undefined)
      throw badRequest(
        `sinceTime: Invalid value: ${JSON.stringify(sinceTimeText)}: parsing time ${JSON.stringify(sinceTimeText)} as "2006-01-02T15:04:05Z07:00": not an RFC3339 time`,
      );
  }
  const errors: FieldError[] = [];
  const invalidValue = (field: string, value: number, why: string) =>
    errors.push({ reason: 'FieldValueInvalid', field, message: `Invalid value: ${value}: ${why}` });
  if (tailLines !== undefined && tailLines < 0)
    invalidValue('tailLines', tailLines, 'must be greater than or equal to 0');
  if (limitBytes !== undefined && limitBytes < 1)
    invalidValue('limitBytes', limitBytes, 'must be greater than 0');
  if (sinceSeconds !== undefined && sinceTime !== undefined)
    errors.push({
      reason: 'FieldValueForbidden',
      field: '',
      message: 'Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified',
    });
  else if (sinceSeconds !== undefined && sinceSeconds < 1)
    invalidValue('sinceSeconds', sinceSeconds, 'must be greater than 0');
  if (errors.length) throw invalid('PodLogOptions', '', pod, errors);
  return {
    container: q.get('container') || undefined,
    follow: flag(q, 'follow'),
    previous: flag(q, 'previous'),
    timestamps: flag(q, 'timestamps'),
    tailLines,
    limitBytes,
    since: sinceSeconds !== undefined ? now() - BigInt(sinceSeconds) * 1_000_000_000n : sinceTime,
  };
}

/** The run number in a kube-lite container ID (`kube-lite://<pod uid>/<container>/<run>`). */
const runOf = (containerID: string | undefined) => {
  const m = /\/(\d+)$/.exec(containerID ?? '');
  return m ? Number(m[1]) : undefined;
};

/**
 * Which run of the container `pods/log` reads, as the kubelet's validateContainerLogStatus picks
 * it: with `previous` the last terminated one, else the running one, else the terminated one, else
 * the last terminated; the kubelet's 400 messages when there is none.
 */
export function logRun(status: ContainerStatus, pod: string, previous: boolean): number {
  const c = status.name;
  const last = 'terminated' in status.lastState ? status.lastState.terminated : undefined;
  const lastRun = runOf(last?.containerID);
  const no = (why: string) => new StatusError(400, 'BadRequest', why);
  if (previous) {
    if (lastRun === undefined)
      throw no(`previous terminated container ${JSON.stringify(c)} in pod ${JSON.stringify(pod)} not found`);
    return lastRun;
  }
  const state = status.state;
  if ('running' in state) return runOf(status.containerID)!;
  if ('terminated' in state) {
    const run = runOf(state.terminated.containerID) ?? lastRun;
    if (run === undefined)
      throw no(`container ${JSON.stringify(c)} in pod ${JSON.stringify(pod)} is terminated`);
    return run;
  }
  if (lastRun !== undefined) return lastRun;
  const reason = state.waiting.reason;
  const why =
    reason === 'ErrImagePull'
      ? "image can't be pulled"
      : reason === 'ImagePullBackOff'
        ? 'trying and failing to pull image'
        : reason;
  throw no(`container ${JSON.stringify(c)} in pod ${JSON.stringify(pod)} is waiting to start: ${why}`);
}

// ---------------------------------------------------------------------------------------------
// Reading

/** What `pods/log` answers: the bytes to send, read as they are asked for (and as they come, with follow). */
export interface PodLogStream {
  follow: boolean;
  read(signal: AbortSignal): AsyncGenerator<Buffer>;
}

/** What `readContainerLog` reads (LogOptions' fields, each optional). */
export interface ReadOptions {
  follow?: boolean | undefined;
  tailLines?: number | undefined;
  since?: bigint | undefined;
  timestamps?: boolean | undefined;
  limitBytes?: number | undefined;
}

/** Where the last `lines` complete records of the file start (past any record still being written). */
async function tailStart(handle: fs.promises.FileHandle, lines: number): Promise<number> {
  const { size } = await handle.stat();
  const buffer = Buffer.allocUnsafe(BLOCK);
  let end = size;
  // The first "\n" from the end closes the last complete record; each further one starts one more.
  let seen = -1;
  while (end > 0) {
    const start = Math.max(0, end - BLOCK);
    const { bytesRead } = await handle.read(buffer, 0, end - start, start);
    for (let i = bytesRead - 1; i >= 0; i--) {
      if (buffer[i] !== NL) continue;
      if (++seen === lines) return start + i + 1;
    }
    end = start;
  }
  return 0;
}

interface CriRecord {
  ns: bigint;
  full: boolean;
  text: Buffer;
}

/** One CRI record (without its "\n"); undefined for a line that is not one. */
export function parseRecord(line: Buffer): CriRecord | undefined {
  const a = line.indexOf(0x20);
  const b = a < 0 ? -1 : line.indexOf(0x20, a + 1);
  if (b < 0) return undefined;
  const ns = parseRfc3339(line.subarray(0, a).toString('latin1'));
  if (ns === undefined) return undefined;
  const c = line.indexOf(0x20, b + 1);
  const tag = line.subarray(b + 1, c < 0 ? line.length : c).toString('latin1');
  return { ns, full: !tag.split(':').includes('P'), text: c < 0 ? Buffer.alloc(0) : line.subarray(c + 1) };
}

/**
 * The output of the log file at `path` for `options`: what is there, then (with `follow`) what is
 * written while the run's writer lives. The file stays open only while this generator runs; it ends
 * at once when `signal` aborts.
 */
export async function* readContainerLog(
  path: string,
  options: ReadOptions,
  signal: AbortSignal,
): AsyncGenerator<Buffer> {
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(path, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw e;
  }
  // Ours, so that a wait still registered with the writer is dropped however this generator ends.
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  if (signal.aborted) stop.abort();
  try {
    let position = options.tailLines === undefined ? 0 : await tailStart(handle, options.tailLines);
    let remain = options.limitBytes ?? Infinity;
    let lineStart = true;
    let pending = Buffer.alloc(0);
    const buffer = Buffer.allocUnsafe(BLOCK);
    for (;;) {
      if (stop.signal.aborted) return;
      // Asked before reading, so that a record written after the read below still wakes us.
      const writer = options.follow ? writers.get(path) : undefined;
      const next = writer?.changed(stop.signal);
      for (;;) {
        const { bytesRead } = await handle.read(buffer, 0, BLOCK, position);
        if (bytesRead === 0 || stop.signal.aborted) break;
        position += bytesRead;
        pending = Buffer.concat([pending, buffer.subarray(0, bytesRead)]);
        const out: Buffer[] = [];
        let from = 0;
        for (let nl = pending.indexOf(NL); nl >= 0; from = nl + 1, nl = pending.indexOf(NL, from)) {
          const r = parseRecord(pending.subarray(from, nl));
          if (!r || (options.since !== undefined && r.ns < options.since)) continue;
          const parts = [
            options.timestamps && lineStart ? Buffer.from(`${formatNs(r.ns)} `) : undefined,
            r.text,
          ];
          if (r.full) parts.push(Buffer.from('\n'));
          lineStart = r.full;
          const bytes = Buffer.concat(parts.filter((p) => p !== undefined));
          if (bytes.length >= remain) {
            out.push(bytes.subarray(0, remain));
            yield Buffer.concat(out);
            return;
          }
          remain -= bytes.length;
          out.push(bytes);
        }
        pending = Buffer.from(pending.subarray(from));
        if (out.length) yield Buffer.concat(out);
      }
      if (!next) return;
      await next;
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
    stop.abort();
    await handle.close();
  }
}
