// One run of a container: its bwrap (the runtime's sandbox over the container's writable root, see
// bwrap/sandbox.ts), leader of its own process group, stdout and stderr on one pipe that kube-lite
// reads into the run's log file in the CRI format (pod-log.ts). /tmp is the root's own, so execs into
// the container share it.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { DEFAULT_PATH, sandboxArgs } from '../../bwrap/sandbox.js';
import { ContainerLog } from './pod-log.js';
import type { Launch } from './pod-spec.js';

export interface ContainerProcess {
  readonly pid: number;
  /** The exit code; a signal counts as 128 + its number, as a shell reports it. */
  readonly exited: Promise<number>;
  /** Signals the process group (bwrap and everything in the container). */
  signal(sig: NodeJS.Signals): void;
}

const SIGNALS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };

export const exitCodeOf = (code: number | null, signal: NodeJS.Signals | null) =>
  code ?? 128 + (signal ? (SIGNALS[signal] ?? 1) : 1);

/** The processes of a process group, from /proc (field 5 of stat is the group). */
function groupMembers(pgid: number): number[] {
  const out: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) === pgid) out.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

function isBwrap(pid: number): boolean {
  try {
    return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'bwrap';
  } catch {
    return false;
  }
}

/** bwrap's argv for `launch` running `command` (its own or an exec's). */
export function bwrapArgv(launch: Launch, command: string[]): string[] {
  return [
    ...sandboxArgs({
      root: launch.root,
      hostname: launch.hostname,
      config: launch.config,
      uid: launch.uid,
      gid: launch.gid,
      privateTmp: false,
      binds: launch.binds,
      env: launch.env,
    }),
    ...command,
  ];
}

/**
 * Node gives a child one pipe per stream; to keep the order in which the container interleaves its
 * stdout and stderr (the kubelet's two pipes can reorder them), bwrap is started through the host's
 * /bin/sh, which points fd 2 at the stdout pipe and execs bwrap in its place (same pid and group).
 */
const ONE_PIPE = ['-c', 'exec 2>&1; exec "$@"', 'sh'];

export function startContainer(
  bwrap: string,
  launch: Launch,
  logPath: string,
  cwd: string,
): ContainerProcess {
  const log = new ContainerLog(logPath);
  let child;
  try {
    child = spawn('/bin/sh', [...ONE_PIPE, bwrap, ...bwrapArgv(launch, launch.command)], {
      cwd,
      detached: true,
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { PATH: process.env.PATH ?? DEFAULT_PATH },
    });
  } catch (e) {
    log.end();
    throw e;
  }
  child.stdout!.on('data', (chunk: Buffer) => log.write(chunk));
  // 'close' comes once the process exited and its pipe is drained: the log is complete then.
  const exited = new Promise<number>((resolve) => {
    child.once('error', (e) => {
      log.note(`kube-lite: cannot start ${bwrap}: ${e.message}`);
      log.end();
      resolve(128);
    });
    child.once('close', (code, signal) => {
      log.end();
      resolve(exitCodeOf(code, signal));
    });
  });
  const pid = child.pid ?? -1;
  return {
    pid,
    exited,
    signal(sig) {
      if (pid <= 0) return;
      // bwrap dies of SIGTERM and takes the container with it (--die-with-parent): a graceful
      // stop signals the container's own processes, bwrap ends when they have.
      const targets = sig === 'SIGKILL' ? [-pid] : groupMembers(pid).filter((p) => !isBwrap(p));
      for (const target of targets.length > 0 ? targets : [-pid]) {
        try {
          process.kill(target, sig);
        } catch {
          // already gone
        }
      }
    },
  };
}
