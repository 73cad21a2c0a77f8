// The process of one exec: a new bwrap over the container's root with the container's binds, env,
// user and working folder, running the exec's command. With a TTY it runs under a pseudo-terminal
// (the sandbox builder's shell.ts; stderr is the terminal too); without, over plain pipes that carry
// bytes as they are (tar streams go through them).
import { spawn } from 'node:child_process';
import { spawnShell } from '../../builder/shell.js';
import { DEFAULT_PATH } from '../../bwrap/sandbox.js';
import { bwrapArgv, exitCodeOf } from './container-process.js';
import type { ExecTarget } from './kubelet.js';

const PTY_DRAIN_MS = 50;

export interface ExecIo {
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

export interface ExecProcess {
  /** Hands stdin data to the process; false when it should wait for `onStdinDrain`. */
  write(data: Buffer): boolean;
  onStdinDrain(listener: () => void): void;
  /** The client closed stdin: EOF to the process. */
  endStdin(): void;
  resize(cols: number, rows: number): void;
  /** The exit code (128 + signal when killed), once all its output was handed over. */
  readonly exited: Promise<number>;
  kill(): void;
}

export interface ExecOutput {
  /** False when the receiving end is full: the process's output waits for `onDrain`. */
  stdout(data: Buffer): boolean;
  stderr(data: Buffer): boolean;
  onDrain(listener: () => void): void;
}

export function spawnExec(target: ExecTarget, command: string[], io: ExecIo, out: ExecOutput): ExecProcess {
  const argv = bwrapArgv(target.launch, command);
  if (io.tty) {
    const shell = spawnShell(target.bwrap, argv, { cols: 80, rows: 24 }, target.dir);
    if (io.stdout) shell.onData((d) => out.stdout(Buffer.from(d, 'utf8')));
    // The terminal's last output may trail its exit by a moment.
    const exited = new Promise<number>((resolve) =>
      shell.onExit((code) => setTimeout(() => resolve(code), PTY_DRAIN_MS)),
    );
    return {
      write: (d) => (shell.write(d), true),
      onStdinDrain: () => undefined,
      // A terminal's EOF is its EOF character at the start of a line.
      endStdin: () => shell.write('\x04'),
      resize: (cols, rows) => shell.resize(cols, rows),
      exited,
      kill: () => shell.close(),
    };
  }
  const child = spawn(target.bwrap, argv, {
    cwd: target.dir,
    stdio: [io.stdin ? 'pipe' : 'ignore', io.stdout ? 'pipe' : 'ignore', io.stderr ? 'pipe' : 'ignore'],
    env: { PATH: process.env.PATH ?? DEFAULT_PATH },
  });
  child.stdin?.on('error', () => undefined);
  // Output waits while the socket's buffer is full, so a large `tar c` never piles up in memory.
  const pause = () => {
    child.stdout?.pause();
    child.stderr?.pause();
    out.onDrain(() => {
      child.stdout?.resume();
      child.stderr?.resume();
    });
  };
  child.stdout?.on('data', (d: Buffer) => out.stdout(d) || pause());
  child.stderr?.on('data', (d: Buffer) => out.stderr(d) || pause());
  const exited = new Promise<number>((resolve) => {
    child.once('error', (e) => {
      void out.stderr(Buffer.from(`kube-lite: cannot start ${target.bwrap}: ${e.message}\n`));
      resolve(126);
    });
    // 'close': the process has exited and its pipes are drained.
    child.once('close', (code, signal) => resolve(exitCodeOf(code, signal)));
  });
  return {
    write: (d) => (child.stdin && !child.stdin.destroyed ? child.stdin.write(d) : true),
    onStdinDrain: (listener) => child.stdin?.once('drain', listener),
    endStdin: () => child.stdin?.end(),
    resize: () => undefined,
    exited,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}
