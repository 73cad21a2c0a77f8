// A shell of a builder container under a pseudo-terminal (@lydell/node-pty, node-pty with prebuilt
// binaries): bwrap is the session leader of the terminal and the shell inside takes it over for
// job control, so Ctrl-C (the terminal's INTR) reaches the foreground job and not bwrap. Closing
// kills bwrap; its child dies with it (--die-with-parent) and with it, as pid 1 of the namespace,
// everything the shell started.
import pty, { type IPty } from '@lydell/node-pty';
import type { BuilderShell } from '@sandflow/images';
import { DEFAULT_PATH } from '../bwrap/sandbox.js';

export interface PtyShell extends BuilderShell {
  /** The shell's bwrap, the root of everything that runs in it. */
  readonly pid: number;
  /** Resolves once the shell's bwrap has exited. */
  readonly exited: Promise<void>;
}

export function spawnShell(
  bwrap: string,
  args: string[],
  size: { cols: number; rows: number },
  cwd: string,
): PtyShell {
  const child: IPty = pty.spawn(bwrap, args, {
    name: 'xterm-256color',
    cols: size.cols,
    rows: size.rows,
    cwd,
    // bwrap clears the environment for the shell (--clearenv); it needs only PATH itself.
    env: { PATH: process.env.PATH ?? DEFAULT_PATH },
    encoding: 'utf8',
  });
  let done = false;
  const exited = new Promise<void>((resolve) =>
    child.onExit(() => {
      done = true;
      resolve();
    }),
  );
  return {
    pid: child.pid,
    exited,
    write: (data) => {
      if (!done) child.write(typeof data === 'string' ? data : data.toString('utf8'));
    },
    resize: (cols, rows) => {
      if (!done) child.resize(Math.max(1, Math.floor(cols)), Math.max(1, Math.floor(rows)));
    },
    onData: (listener) => {
      child.onData(listener);
    },
    onExit: (listener) => {
      // A shell killed by a signal exits as a shell reports it: 128 + the signal number.
      child.onExit(({ exitCode, signal }) => listener(signal ? 128 + signal : exitCode));
    },
    close: () => {
      if (!done) child.kill('SIGKILL');
    },
  };
}
