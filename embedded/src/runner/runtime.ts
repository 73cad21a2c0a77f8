// Where the steps of the local runner execute. The process runtime runs each container step as a
// child process (its own process group, so Stop kills everything it started) in a fresh working
// folder; /sandflow is remapped to the run's shared folder; stdout+stderr go to a per-node log file
// that can be followed while it grows. CPU and memory requests are counted against the machine so
// it is never oversubscribed: a step that does not fit stays Pending, as an unschedulable pod would.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Artifact } from './argo.js';

export interface Capacity {
  /** Millicores. */
  cpu: number;
  /** MiB. */
  memory: number;
}

export function machineCapacity(): Capacity {
  return { cpu: os.cpus().length * 1000, memory: Math.floor(os.totalmem() / 1048576) };
}

export interface StepSpec {
  /** Pod name (the Argo node id). */
  pod: string;
  namespace: string;
  workflow: string;
  command: string[];
  env: Record<string, string>;
  /** The stdin-less script of a script template, run as `command… <file>`. */
  script?: string;
  /** Capture stdout as outputs.result (script templates). */
  captureResult: boolean;
  requests: Capacity;
  /** In-process step (the split helper): returns its result. */
  native?: (log: (line: string) => void) => Promise<string>;
  /** The container image; isolating runtimes run the step in its root filesystem. */
  image?: string;
  /** `amd64` or `arm64`; the machine's when absent. */
  architecture?: string;
  /** UID and GID the step runs as (isolating runtimes). */
  uid?: number;
  gid?: number;
  /** Host folders made visible to the step (isolating runtimes). */
  mounts?: { hostPath: string; mountPath: string; readOnly?: boolean }[];
  /** Hard limits (isolating runtimes): address space in MiB, CPU time in seconds. */
  limits?: { memoryMiB?: number; cpuSeconds?: number };
}

/** How a step's process is started: what {@link ProcessRuntime} spawns, in its process group. */
export interface LaunchPlan {
  argv: string[];
  env: Record<string, string>;
  cwd: string;
  /** Removes what the plan made for the step (runs once the step is over). */
  cleanup?: () => void;
}

/** Where a step's files live on the host. */
export interface StepDirs {
  podDir: string;
  workDir: string;
  shared: string;
}

export interface StepResult {
  phase: 'Succeeded' | 'Failed' | 'Error';
  exitCode?: number;
  message?: string;
  result?: string;
  startedAt: string;
  finishedAt: string;
  artifacts?: Artifact[];
}

export interface StepHandle {
  pod: string;
  key: string;
  startedAt: string;
  result?: StepResult;
  kill(reason: string): void;
}

export type StartOutcome = { started: StepHandle } | { pending: string };

export interface Runtime {
  readonly name: string;
  /** Where the shared folder and logs of a workflow live. */
  runDir(namespace: string, workflow: string): string;
  sharedDir(namespace: string, workflow: string): string;
  logKey(namespace: string, workflow: string, pod: string): string;
  start(step: StepSpec, onExit: (h: StepHandle) => void): StartOutcome;
  get(pod: string): StepHandle | undefined;
  forget(pod: string): void;
  /** Kills what a previous runner left behind for a pod (its process group), if anything. */
  reapOrphan(namespace: string, workflow: string, pod: string): void;
  killWorkflow(namespace: string, workflow: string, reason: string): void;
  removeWorkflow(namespace: string, workflow: string): void;
  /** Millicores and MiB in use. */
  used(): Capacity;
  capacity: Capacity;
  close(): Promise<void>;
}

export interface ProcessRuntimeOptions {
  /** Root of the runs' folders: `$SANDFLOW_DATA_DIR/runs`. */
  root: string;
  capacity?: Capacity;
  /** Seconds between SIGTERM and SIGKILL when a step is stopped. */
  gracePeriodSeconds?: number;
}

const SHARED = '/sandflow';
const SHARED_RE = /(^|[^A-Za-z0-9_.\-/])\/sandflow(?=$|[/\s"':;,)}])/g;

/** Rewrites the container path /sandflow to the run's shared folder wherever it appears. */
export function remapShared(value: string, sharedDir: string): string {
  return value.replace(SHARED_RE, (_m, pre: string) => `${pre}${sharedDir}`);
}

export class ProcessRuntime implements Runtime {
  readonly name: string = 'process';
  readonly capacity: Capacity;
  private readonly handles = new Map<string, StepHandle & { reserved: Capacity; child?: ChildProcess }>();
  private inUse: Capacity = { cpu: 0, memory: 0 };

  constructor(protected readonly options: ProcessRuntimeOptions) {
    this.capacity = options.capacity ?? machineCapacity();
    fs.mkdirSync(options.root, { recursive: true });
  }

  runDir(namespace: string, workflow: string) {
    return path.join(this.options.root, namespace, workflow);
  }
  sharedDir(namespace: string, workflow: string) {
    return path.join(this.runDir(namespace, workflow), 'shared');
  }
  logKey(namespace: string, workflow: string, pod: string) {
    return `${namespace}/${workflow}/${pod}/main.log`;
  }
  protected podDir(step: { namespace: string; workflow: string; pod: string }) {
    return path.join(this.runDir(step.namespace, step.workflow), step.pod);
  }

  used(): Capacity {
    return { ...this.inUse };
  }

  get(pod: string) {
    return this.handles.get(pod);
  }

  forget(pod: string) {
    const h = this.handles.get(pod);
    if (h && h.result) this.handles.delete(pod);
  }

  start(step: StepSpec, onExit: (h: StepHandle) => void): StartOutcome {
    const cap = this.capacity;
    const req = step.requests;
    if (req.cpu > cap.cpu || req.memory > cap.memory) {
      return {
        pending: `Unschedulable: 0/1 nodes are available: 1 Insufficient ${req.cpu > cap.cpu ? 'cpu' : 'memory'} (requests ${req.cpu}m cpu, ${Math.round(req.memory)}Mi memory; the machine has ${cap.cpu}m, ${cap.memory}Mi).`,
      };
    }
    if (this.inUse.cpu + req.cpu > cap.cpu || this.inUse.memory + req.memory > cap.memory) {
      return {
        pending: `Unschedulable: 0/1 nodes are available: 1 Insufficient ${this.inUse.cpu + req.cpu > cap.cpu ? 'cpu' : 'memory'}.`,
      };
    }
    this.inUse = { cpu: this.inUse.cpu + req.cpu, memory: this.inUse.memory + req.memory };
    const startedAt = new Date().toISOString();
    const podDir = this.podDir(step);
    const workDir = path.join(podDir, 'work');
    const shared = this.sharedDir(step.namespace, step.workflow);
    const key = `${step.namespace}/${step.workflow}`;
    const handle: StepHandle & { reserved: Capacity; child?: ChildProcess } = {
      pod: step.pod,
      key,
      startedAt,
      reserved: req,
      kill: () => undefined,
    };
    this.handles.set(step.pod, handle);
    let logFd: number;
    try {
      fs.rmSync(workDir, { recursive: true, force: true });
      fs.mkdirSync(workDir, { recursive: true });
      fs.mkdirSync(shared, { recursive: true });
      logFd = fs.openSync(path.join(podDir, 'main.log'), 'a');
    } catch (e) {
      // The step's folders cannot be made (a full disk): nothing was spawned, the pod fails to start
      // (deferred, as every outcome, so the caller records the node first) and frees its share.
      this.inUse = { cpu: this.inUse.cpu - req.cpu, memory: this.inUse.memory - req.memory };
      const message = `failed to start container: ${(e as Error).message}`;
      setImmediate(() => {
        handle.result = { phase: 'Error', message, startedAt, finishedAt: new Date().toISOString() };
        onExit(handle);
      });
      return { started: handle };
    }
    let killedFor: string | undefined;
    let cleanup: (() => void) | undefined;
    const setKilled = (reason: string) => {
      killedFor = reason;
    };
    const finish = (r: Omit<StepResult, 'startedAt' | 'finishedAt'>) => {
      if (handle.result) return;
      try {
        cleanup?.();
      } catch {
        /* best effort: reapOrphan removes it at the next start */
      }
      try {
        fs.closeSync(logFd);
      } catch {
        /* already closed */
      }
      this.inUse = { cpu: this.inUse.cpu - req.cpu, memory: this.inUse.memory - req.memory };
      try {
        fs.rmSync(path.join(podDir, 'pid'), { force: true });
      } catch {
        /* best effort: the step is over either way */
      }
      handle.result = {
        ...r,
        ...(killedFor ? { phase: 'Failed', message: killedFor } : {}),
        startedAt,
        finishedAt: new Date().toISOString(),
        artifacts: [{ name: 'main-logs', s3: { key: this.logKey(step.namespace, step.workflow, step.pod) } }],
      };
      onExit(handle);
    };

    if (step.native) {
      handle.kill = (reason) => {
        killedFor = reason;
      };
      const log = (line: string) => note(logFd, line.endsWith('\n') ? line : `${line}\n`);
      // Deferred so the caller records the Running node before the step can finish.
      setImmediate(() => {
        step.native!(log).then(
          (result) => finish({ phase: 'Succeeded', exitCode: 0, result }),
          (e: unknown) => {
            log(String((e as Error).message ?? e));
            finish({ phase: 'Failed', exitCode: 1, message: 'Error (exit code 1)' });
          },
        );
      });
      return { started: handle };
    }

    const dirs: StepDirs = { podDir, workDir, shared };
    let planned: LaunchPlan | Promise<LaunchPlan>;
    try {
      planned = this.plan(step, dirs);
    } catch (e) {
      planned = Promise.reject(e as Error);
    }
    if (!(planned instanceof Promise)) {
      cleanup = planned.cleanup;
      return this.launch(step, dirs, planned, handle, logFd, finish, setKilled);
    }
    // Preparing can take a while (an image root to copy): Stop before the spawn just ends the step.
    handle.kill = (reason) => setKilled(reason);
    planned.then(
      (plan) => {
        if (killedFor) {
          plan.cleanup?.();
          finish({ phase: 'Failed' });
          return;
        }
        cleanup = plan.cleanup;
        this.launch(step, dirs, plan, handle, logFd, finish, setKilled);
      },
      (e: unknown) => {
        const message = (e as Error).message ?? String(e);
        note(logFd, `failed to start container: ${message}\n`);
        finish({ phase: 'Error', message: `failed to start container: ${message}` });
      },
    );
    return { started: handle };
  }

  /** The process to start for a step: the host command, with /sandflow remapped. */
  protected plan(step: StepSpec, dirs: StepDirs): LaunchPlan | Promise<LaunchPlan> {
    const { podDir, workDir, shared } = dirs;
    const argv = step.command.map((a) => remapShared(a, shared));
    if (step.script !== undefined) {
      const scriptPath = path.join(podDir, 'script');
      fs.writeFileSync(scriptPath, remapShared(step.script, shared));
      argv.push(scriptPath);
    }
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
      HOME: workDir,
      HOSTNAME: step.pod,
      LANG: process.env.LANG ?? 'C.UTF-8',
      TMPDIR: workDir,
    };
    for (const [k, v] of Object.entries(step.env)) env[k] = remapShared(v, shared);
    return { argv, env, cwd: workDir };
  }

  private launch(
    step: StepSpec,
    dirs: StepDirs,
    plan: LaunchPlan,
    handle: StepHandle & { child?: ChildProcess },
    logFd: number,
    finish: (r: Omit<StepResult, 'startedAt' | 'finishedAt'>) => void,
    setKilled: (reason: string) => void,
  ): StartOutcome {
    const { podDir } = dirs;
    const { argv, env, cwd } = plan;
    const resultPath = path.join(podDir, 'stdout');
    let outFd = logFd;
    let child: ChildProcess;
    try {
      if (step.captureResult) outFd = fs.openSync(resultPath, 'w');
      child = spawn(argv[0]!, argv.slice(1), {
        cwd,
        env,
        detached: true,
        stdio: ['ignore', outFd, logFd],
      });
    } catch (e) {
      if (outFd !== logFd) fs.closeSync(outFd);
      note(logFd, `failed to start ${argv[0]}: ${(e as Error).message}\n`);
      setImmediate(() =>
        finish({ phase: 'Error', message: `failed to start container: ${(e as Error).message}` }),
      );
      return { started: handle };
    }
    handle.child = child;
    // The listeners come first: whatever fails below (a full disk), the step's end is still seen.
    child.once('error', (e) => {
      note(logFd, `failed to start ${argv[0]}: ${e.message}\n`);
      if (outFd !== logFd) fs.closeSync(outFd);
      finish({ phase: 'Error', message: `failed to start container: ${e.message}` });
    });
    child.once('exit', (code, signal) => {
      if (handle.result) return;
      let result: string | undefined;
      if (outFd !== logFd) {
        fs.closeSync(outFd);
        const out = fs.readFileSync(resultPath, 'utf8');
        note(logFd, out);
        result = out.replace(/\n$/, '');
      }
      const exitCode = code ?? (signal ? 128 + (os.constants.signals[signal] ?? 9) : 1);
      finish(
        exitCode === 0
          ? { phase: 'Succeeded', exitCode, ...(result !== undefined ? { result } : {}) }
          : { phase: 'Failed', exitCode, message: `Error (exit code ${exitCode})` },
      );
    });
    const grace = (this.options.gracePeriodSeconds ?? 2) * 1000;
    handle.kill = (reason) => {
      if (handle.result) return;
      setKilled(reason);
      killGroup(child.pid, 'SIGTERM');
      setTimeout(() => killGroup(child.pid, 'SIGKILL'), grace).unref();
    };
    try {
      if (child.pid) fs.writeFileSync(path.join(podDir, 'pid'), String(child.pid));
    } catch {
      // Only for reapOrphan after a crash of the runner; the step itself goes on.
    }
    return { started: handle };
  }

  reapOrphan(namespace: string, workflow: string, pod: string) {
    const pidFile = path.join(this.podDir({ namespace, workflow, pod }), 'pid');
    try {
      const pid = Number(fs.readFileSync(pidFile, 'utf8'));
      if (pid > 1) killGroup(pid, 'SIGKILL');
      fs.rmSync(pidFile, { force: true });
    } catch {
      /* nothing left behind */
    }
  }

  killWorkflow(namespace: string, workflow: string, reason: string) {
    const key = `${namespace}/${workflow}`;
    for (const h of this.handles.values()) if (h.key === key && !h.result) h.kill(reason);
  }

  removeWorkflow(namespace: string, workflow: string) {
    this.killWorkflow(namespace, workflow, 'workflow deleted');
    const key = `${namespace}/${workflow}`;
    for (const [pod, h] of this.handles) if (h.key === key && h.result) this.handles.delete(pod);
  }

  async close() {
    const running = [...this.handles.values()].filter((h) => !h.result && h.child);
    for (const h of running) killGroup(h.child!.pid, 'SIGKILL');
  }
}

/** Best effort: a log line that cannot be written (a full disk) must not stop the step's bookkeeping. */
function note(fd: number, text: string) {
  try {
    fs.writeSync(fd, text);
  } catch {
    /* lost with the log */
  }
}

function killGroup(pid: number | undefined, signal: NodeJS.Signals) {
  if (!pid) return;
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      /* gone */
    }
  }
}

/** A docker/podman engine answering on this machine, if any (none on these machines). */
export function detectContainerEngine(): string | undefined {
  for (const bin of ['docker', 'podman']) {
    for (const dir of (process.env.PATH ?? '').split(':')) {
      if (dir && fs.existsSync(path.join(dir, bin))) return bin;
    }
  }
  return undefined;
}

export { SHARED as SHARED_MOUNT };
