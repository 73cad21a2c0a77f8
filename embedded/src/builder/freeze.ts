// Pausing a container while the platform reads or writes its folder, as `docker commit` pauses by
// default. Without it a process inside could swap a folder for a symlink between the platform's
// check of a path and its use (reading a host file into a layer, or renaming an upload over one).
// There is no cgroup freezer to rely on, so every process under the shells' bwrap is stopped with
// SIGSTOP, parents before children (a child is stopped only once its parent is, so a fork cannot
// slip through and a shell never sees its foreground job stop), until no unstopped descendant
// is left; thawing continues them children first, so a shell wakes to find its job running.
import fs from 'node:fs';

interface Proc {
  ppid: number;
  state: string;
}

function processes(): Map<number, Proc> {
  const out = new Map<number, Proc>();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      // The command name may hold spaces and parentheses: fields are counted from the last ')'.
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(name), { ppid: Number(ppid), state: state ?? '' });
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

const halted = (p: Proc | undefined) => !p || 'TtZX'.includes(p.state);

function signal(pid: number, sig: NodeJS.Signals) {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

const MAX_ROUNDS = 2000;

/** Stops every descendant of `roots`; answers the function that continues them. */
export async function freezeTree(roots: number[]): Promise<() => void> {
  const stopped: number[] = [];
  const seen = new Set<number>();
  const thaw = () => {
    for (const pid of [...stopped].reverse()) signal(pid, 'SIGCONT');
  };
  if (roots.length === 0) return thaw; // no shell, nothing runs
  const rootSet = new Set(roots);
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const procs = processes();
    let settled = true;
    for (const [pid, p] of procs) {
      if (seen.has(pid)) {
        if (!halted(p)) settled = false;
        continue;
      }
      const underRoot = rootSet.has(p.ppid);
      const underStopped = seen.has(p.ppid);
      if (!underRoot && !underStopped) continue;
      settled = false;
      if (underRoot || halted(procs.get(p.ppid))) {
        signal(pid, 'SIGSTOP');
        seen.add(pid);
        stopped.push(pid);
      }
    }
    if (settled) return thaw;
    await new Promise((r) => setTimeout(r, round < 20 ? 0 : 5));
  }
  thaw();
  throw new Error('the container did not come to a stop (its processes keep forking)');
}

/** One holder at a time: a freeze, or a shell being spawned (which must not escape a freeze). */
export class Mutex {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.tail.then(fn);
    this.tail = next.catch(() => undefined);
    return next;
  }
}
