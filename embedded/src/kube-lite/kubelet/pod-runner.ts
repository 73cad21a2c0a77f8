// One Pod on this machine, from its folders to its last process. In `<podsDir>/<uid>`: `volumes/<name>`
// (its emptyDirs; hostPath volumes are bound where they are), `containers/<name>/rootfs` (a writable
// copy of the image's unpacked root per container, as the sandbox builder makes it) and
// `logs/<name>.log`. The images are pulled first (a failure leaves the container waiting with
// ErrImagePull and the pull's message), then the init containers run one after another to
// completion, then the containers together; restartPolicy Always and OnFailure restart a container
// (an init container only on failure) after a back-off of 1 s doubling up to 10 s. Past
// activeDeadlineSeconds the processes are ended and the Pod fails (DeadlineExceeded). `onChange` is
// called whenever what status.ts reports may have moved.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import type { ImageRoot } from '@sandflow/images';
import { removeTree } from '../../builder/reap.js';
import type { KubeObject } from '../types.js';
import { startContainer, type ContainerProcess } from './container-process.js';
import {
  nowIso,
  setRestarting,
  setRunning,
  setTerminated,
  setWaiting,
  waitingStatus,
  type ContainerStatus,
} from './container-status.js';
import { ContainerConfigError, launchOf, podSpec, type ContainerSpec, type Launch } from './pod-spec.js';

const run = promisify(execFile);

export type PodPhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed';

export interface PodRunnerDeps {
  podsDir: string;
  bwrap: string;
  /** The image's unpacked root, pulled with the Pod's credentials. */
  rootfs: (image: string) => Promise<ImageRoot>;
  onChange: () => void;
}

/** How long a container gets between SIGTERM and SIGKILL, whatever the Pod asks. */
const MAX_GRACE_SECONDS = 3;
const BACKOFF_MAX_MS = 10_000;

export class PodRunner {
  phase: PodPhase = 'Pending';
  reason: string | undefined;
  message: string | undefined;
  readonly startTime = nowIso();
  initialized = false;
  readonly initStatuses: ContainerStatus[];
  readonly statuses: ContainerStatus[];
  readonly dir: string;
  private readonly launches = new Map<string, Launch>();
  private readonly processes = new Set<ContainerProcess>();
  private readonly stopping = new AbortController();
  private lifecycle: Promise<void> = Promise.resolve();
  private terminated: Promise<void> | undefined;
  private deadline: NodeJS.Timeout | undefined;

  constructor(
    readonly pod: KubeObject,
    private readonly deps: PodRunnerDeps,
  ) {
    const spec = podSpec(pod);
    this.dir = path.join(deps.podsDir, pod.metadata.uid!);
    this.initStatuses = (spec.initContainers ?? []).map((c) =>
      waitingStatus(c.name, c.image, 'PodInitializing'),
    );
    const first = spec.initContainers?.length ? 'PodInitializing' : 'ContainerCreating';
    this.statuses = (spec.containers ?? []).map((c) => waitingStatus(c.name, c.image, first));
  }

  get stopped(): boolean {
    return this.stopping.signal.aborted;
  }

  start(): void {
    const deadline = podSpec(this.pod).activeDeadlineSeconds;
    if (typeof deadline === 'number' && deadline > 0)
      this.deadline = setTimeout(() => void this.expire(deadline), deadline * 1000);
    this.lifecycle = this.live().catch((e: unknown) => {
      if (this.stopped) return;
      this.finish('Failed', 'KubeletError', (e as Error).message);
    });
  }

  /** Where a container's stdout and stderr go, every run of it. */
  logPath(container: string): string {
    return path.join(this.dir, 'logs', `${container}.log`);
  }

  /** The launch of a running container, for an exec into it. */
  running(container: string): Launch | undefined {
    const s = this.statuses.find((x) => x.name === container);
    return s && 'running' in s.state ? this.launches.get(container) : undefined;
  }

  /** Kills every process (SIGTERM, SIGKILL after the grace period) and removes the Pod's folders. */
  async stop(): Promise<void> {
    await this.terminate();
    await this.lifecycle;
    await removeTree(this.dir);
  }

  /** No more starts or restarts; every process gets SIGTERM, then SIGKILL after the grace period. */
  private terminate(): Promise<void> {
    if (!this.terminated) {
      this.stopping.abort();
      clearTimeout(this.deadline);
      const asked = podSpec(this.pod).terminationGracePeriodSeconds ?? 30;
      const grace = Math.max(0, Math.min(asked, MAX_GRACE_SECONDS)) * 1000;
      const all = [...this.processes];
      for (const p of all) p.signal('SIGTERM');
      const timer = setTimeout(() => all.forEach((p) => p.signal('SIGKILL')), grace);
      this.terminated = Promise.all(all.map((p) => p.exited)).then(() => clearTimeout(timer));
    }
    return this.terminated;
  }

  /** activeDeadlineSeconds passed: the Pod's processes end and it fails, as the kubelet does it. */
  private async expire(seconds: number): Promise<void> {
    if (this.phase === 'Succeeded' || this.phase === 'Failed' || this.stopped) return;
    await this.terminate();
    for (const s of [...this.initStatuses, ...this.statuses])
      if ('running' in s.state) setTerminated(s, 137, 'the pod reached its activeDeadlineSeconds');
    this.finish(
      'Failed',
      'DeadlineExceeded',
      `Pod was active on the node longer than the specified deadline (${seconds} s)`,
    );
  }

  private finish(phase: PodPhase, reason?: string, message?: string): void {
    clearTimeout(this.deadline);
    this.phase = phase;
    this.reason = reason;
    this.message = message;
    this.deps.onChange();
  }

  private async live(): Promise<void> {
    const spec = podSpec(this.pod);
    if (!Array.isArray(spec.containers) || spec.containers.length === 0)
      return this.finish('Failed', 'Invalid', 'spec.containers: Required value');
    const volumes = await this.makeVolumes();
    if (!volumes) return;
    const inits = spec.initContainers ?? [];
    const ok =
      (await this.prepare(inits, this.initStatuses, volumes)) &&
      (await this.prepare(spec.containers, this.statuses, volumes));
    if (!ok || this.stopped) return;
    const policy = spec.restartPolicy ?? 'Always';
    for (const [i, c] of inits.entries()) {
      const code = await this.runContainer(
        c,
        this.initStatuses[i]!,
        (exit) => exit !== 0 && policy !== 'Never',
      );
      if (this.stopped) return;
      if (code !== 0) {
        for (const s of this.statuses)
          setWaiting(s, 'Init:Error', `init container ${c.name} exited with code ${code}`);
        return this.finish('Failed', undefined, `init container ${c.name} exited with code ${code}`);
      }
    }
    this.initialized = true;
    this.phase = 'Running';
    const codes = await Promise.all(
      spec.containers.map((c, i) =>
        this.runContainer(
          c,
          this.statuses[i]!,
          (exit) => policy === 'Always' || (policy === 'OnFailure' && exit !== 0),
        ),
      ),
    );
    if (this.stopped) return;
    clearTimeout(this.deadline);
    this.finish(codes.every((c) => c === 0) ? 'Succeeded' : 'Failed');
  }

  private async makeVolumes(): Promise<Map<string, string> | undefined> {
    const dirs = new Map<string, string>();
    await fs.mkdir(path.join(this.dir, 'logs'), { recursive: true });
    for (const v of podSpec(this.pod).volumes ?? []) {
      if (v.emptyDir) {
        const dir = path.join(this.dir, 'volumes', v.name);
        await fs.mkdir(dir, { recursive: true, mode: 0o777 });
        await fs.chmod(dir, 0o777);
        dirs.set(v.name, dir);
        continue;
      }
      const refused = v.hostPath ? await hostPathRefusal(v.hostPath) : undefined;
      if (!v.hostPath || refused) {
        const kind = Object.keys(v).find((k) => k !== 'name') ?? 'unknown';
        this.finish(
          'Failed',
          'UnsupportedVolume',
          `volume ${v.name}: ${refused ?? `only emptyDir and hostPath volumes are supported, not ${kind}`}`,
        );
        return undefined;
      }
      dirs.set(v.name, v.hostPath.path);
    }
    return dirs;
  }

  /** Pulls and copies the images of `containers`; false when one cannot be (its status says why). */
  private async prepare(
    containers: ContainerSpec[],
    statuses: ContainerStatus[],
    volumes: Map<string, string>,
  ): Promise<boolean> {
    for (const [i, c] of containers.entries()) {
      if (this.stopped) return false;
      const status = statuses[i]!;
      let image: ImageRoot;
      try {
        image = await this.deps.rootfs(c.image);
      } catch (e) {
        setWaiting(status, 'ErrImagePull', `failed to pull image "${c.image}": ${(e as Error).message}`);
        this.deps.onChange();
        return false;
      }
      const root = path.join(this.dir, 'containers', c.name, 'rootfs');
      try {
        const launch = launchOf(this.pod, c, image.config, root, volumes);
        await fs.mkdir(path.dirname(root), { recursive: true });
        await run('cp', ['-a', '--reflink=auto', image.root, root]);
        for (const b of launch.binds)
          if (!existsSync(b.hostPath)) await fs.mkdir(b.hostPath, { recursive: true });
        if (launch.command.length === 0)
          throw new ContainerConfigError(
            `image ${c.image} has no Entrypoint or Cmd and the container no command`,
          );
        this.launches.set(c.name, launch);
      } catch (e) {
        if (!(e instanceof ContainerConfigError)) throw e;
        setWaiting(status, 'CreateContainerConfigError', e.message);
        this.deps.onChange();
        return false;
      }
    }
    return true;
  }

  /** Runs `c` until it exits for good; answers its last exit code. */
  private async runContainer(
    c: ContainerSpec,
    status: ContainerStatus,
    again: (exit: number) => boolean,
  ): Promise<number> {
    const launch = this.launches.get(c.name)!;
    const logPath = this.logPath(c.name);
    for (let attempt = 0; ; attempt++) {
      if (this.stopped) return 137;
      if (attempt > 0) status.restartCount++;
      const proc = startContainer(this.deps.bwrap, launch, logPath, this.dir);
      this.processes.add(proc);
      setRunning(status, `kube-lite://${this.pod.metadata.uid}/${c.name}/${attempt}`);
      this.deps.onChange();
      const code = await proc.exited;
      this.processes.delete(proc);
      if (this.stopped) return code;
      setTerminated(status, code);
      if (!again(code)) {
        this.deps.onChange();
        return code;
      }
      const backoff = Math.min(BACKOFF_MAX_MS, 1000 * 2 ** attempt);
      setRestarting(status, backoff / 1000, this.pod.metadata.name!);
      this.deps.onChange();
      try {
        await sleep(backoff, undefined, { signal: this.stopping.signal });
      } catch {
        return code;
      }
    }
  }
}

/** Why a hostPath volume cannot be bound (its type says what must be there), or nothing. */
async function hostPathRefusal(source: { path: string; type?: string }): Promise<string | undefined> {
  const type = source.type ?? '';
  if (!path.isAbsolute(source.path)) return `hostPath ${source.path} is not absolute`;
  if (type === 'DirectoryOrCreate') {
    await fs.mkdir(source.path, { recursive: true, mode: 0o755 });
    return undefined;
  }
  const st = await fs.stat(source.path).catch(() => undefined);
  if (type === '') return st ? undefined : `hostPath ${source.path} does not exist`;
  if (type === 'Directory')
    return st?.isDirectory() ? undefined : `hostPath ${source.path} is not a directory`;
  if (type === 'File') return st?.isFile() ? undefined : `hostPath ${source.path} is not a file`;
  return `hostPath type ${type} is not supported (Directory, DirectoryOrCreate, File or none)`;
}
