// One Pod on this machine, from its folders to its last process. In `<podsDir>/<uid>`: `volumes/<name>`
// (its emptyDirs; hostPath volumes are bound where they are), `containers/<name>/rootfs` (a writable
// copy of the image's unpacked root per container, as the sandbox builder makes it) and
// `logs/<name>/<restartCount>.log` (each run's output in the CRI format, pod-log.ts; the current and
// the previous run are kept, as the kubelet keeps them); secret and configMap volumes are written into `volumes/<name>` once, before
// any container (a missing source that is not optional holds the Pod in ContainerCreating and is
// looked for again after a back-off) and mounted read-only. The images are pulled first: a failed
// pull leaves the container waiting with ErrImagePull for a second, then ImagePullBackOff until the
// next attempt, after a back-off of 1 s doubling up to 10 s. Then the init containers run one after
// another to completion, then the containers together. Each start of a container works out its
// environment again (config-sources.ts): a Secret, ConfigMap or key missing leaves it waiting with
// CreateContainerConfigError, tried again after the same back-off. restartPolicy Always and
// OnFailure restart a container (an init container only on failure) after that back-off too. Past
// activeDeadlineSeconds the processes are ended and the Pod fails (DeadlineExceeded). `onChange` is
// called whenever what status.ts reports may have moved.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import type { ImageRoot } from '@sandflow/images';
import { removeTree } from '../../builder/reap.js';
import { StatusError } from '../errors.js';
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
import {
  ContainerConfigError,
  MissingSourceError,
  sourceRefusal,
  writeSourceFiles,
  type EnvContext,
  type Lookup,
} from './config-sources.js';
import {
  launchOf,
  podSpec,
  type ContainerSpec,
  type Launch,
  type Volume,
  type VolumeDir,
} from './pod-spec.js';
import { logRun } from './pod-log.js';

const run = promisify(execFile);

export type PodPhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed';

export interface PodRunnerDeps {
  podsDir: string;
  bwrap: string;
  /** The image's unpacked root, pulled with the Pod's credentials. */
  rootfs: (image: string) => Promise<ImageRoot>;
  /** The Secrets and ConfigMaps of the Pod's namespace, as they are now. */
  lookup: Lookup;
  onChange: () => void;
}

/** How long a container gets between SIGTERM and SIGKILL, whatever the Pod asks. */
const MAX_GRACE_SECONDS = 3;
const BACKOFF_MAX_MS = 10_000;
/** How long a failed pull shows ErrImagePull before ImagePullBackOff. */
const ERR_IMAGE_PULL_MS = 1_000;

/** The back-off before attempt `attempt + 1`: 1 s doubling up to 10 s. */
export const backoffMs = (attempt: number) => Math.min(BACKOFF_MAX_MS, 1000 * 2 ** attempt);

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
  private readonly images = new Map<string, ImageRoot>();
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

  /** Where the stdout and stderr of run `run` (its restartCount) of a container go. */
  logPath(container: string, run: number): string {
    return path.join(this.dir, 'logs', container, `${run}.log`);
  }

  /**
   * The log file `pods/log` reads for `container` (one of the Pod's containers or init containers):
   * its current run or, with `previous`, the one before; a 400 Status as the kubelet's when there is none.
   */
  logFile(container: string, previous: boolean): string {
    const status = [...this.statuses, ...this.initStatuses].find((s) => s.name === container);
    if (!status)
      throw new StatusError(
        400,
        'BadRequest',
        `container ${JSON.stringify(container)} in pod ${JSON.stringify(this.pod.metadata.name)} is not available`,
      );
    return this.logPath(container, logRun(status, this.pod.metadata.name!, previous));
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
      (await this.prepare(inits, this.initStatuses)) && (await this.prepare(spec.containers, this.statuses));
    if (!ok || this.stopped) return;
    const policy = spec.restartPolicy ?? 'Always';
    for (const [i, c] of inits.entries()) {
      const code = await this.runContainer(
        c,
        this.initStatuses[i]!,
        volumes,
        (exit) => exit !== 0 && policy !== 'Never',
      );
      if (this.stopped || code === undefined) return;
      if (code !== 0) {
        for (const s of this.statuses)
          setWaiting(s, 'Init:Error', `init container ${c.name} exited with code ${code}`);
        return this.finish('Failed', undefined, `init container ${c.name} exited with code ${code}`);
      }
    }
    this.initialized = true;
    this.deps.onChange();
    const codes = await Promise.all(
      spec.containers.map((c, i) =>
        this.runContainer(
          c,
          this.statuses[i]!,
          volumes,
          (exit) => policy === 'Always' || (policy === 'OnFailure' && exit !== 0),
        ),
      ),
    );
    // A container that cannot be configured waits for good (its status says why), as the Pod does.
    if (this.stopped || codes.includes(undefined)) return;
    clearTimeout(this.deadline);
    this.finish(codes.every((c) => c === 0) ? 'Succeeded' : 'Failed');
  }

  private async makeVolumes(): Promise<Map<string, VolumeDir> | undefined> {
    const dirs = new Map<string, VolumeDir>();
    await fs.mkdir(path.join(this.dir, 'logs'), { recursive: true });
    const projected: Volume[] = [];
    for (const v of podSpec(this.pod).volumes ?? []) {
      const dir = path.join(this.dir, 'volumes', v.name);
      if (v.emptyDir) {
        await fs.mkdir(dir, { recursive: true, mode: 0o777 });
        await fs.chmod(dir, 0o777);
        dirs.set(v.name, { dir });
        continue;
      }
      const kind = v.secret ? 'Secret' : v.configMap ? 'ConfigMap' : undefined;
      let refused: string | undefined;
      if (kind) refused = sourceRefusal(kind, (v.secret ?? v.configMap)!);
      else if (v.hostPath) refused = await hostPathRefusal(v.hostPath);
      else {
        const other = Object.keys(v).find((k) => k !== 'name') ?? 'unknown';
        refused = `only emptyDir, hostPath, secret and configMap volumes are supported, not ${other}`;
      }
      if (refused) {
        this.finish('Failed', 'UnsupportedVolume', `volume ${v.name}: ${refused}`);
        return undefined;
      }
      if (kind) {
        projected.push(v);
        dirs.set(v.name, { dir, readOnly: true });
      } else dirs.set(v.name, { dir: v.hostPath!.path });
    }
    return (await this.writeProjected(projected)) ? dirs : undefined;
  }

  /**
   * Writes the files of the secret and configMap volumes; while a source is missing, the containers
   * wait (ContainerCreating, the message naming it) and it is looked for again after a back-off.
   */
  private async writeProjected(volumes: Volume[]): Promise<boolean> {
    const namespace = this.pod.metadata.namespace!;
    const waiting = () => [...this.initStatuses, ...this.statuses].filter((s) => 'waiting' in s.state);
    for (let attempt = 0; ; attempt++) {
      if (this.stopped) return false;
      let missing: string | undefined;
      for (const v of volumes) {
        const dir = path.join(this.dir, 'volumes', v.name);
        await removeTree(dir);
        try {
          const kind = v.secret ? 'Secret' : 'ConfigMap';
          await writeSourceFiles(this.deps.lookup, namespace, kind, (v.secret ?? v.configMap)!, dir);
        } catch (e) {
          if (!(e instanceof MissingSourceError)) throw e;
          missing = `MountVolume.SetUp failed for volume "${v.name}": ${e.message}`;
          break;
        }
      }
      if (!missing && attempt === 0) return true;
      for (const s of waiting()) if ('waiting' in s.state) setWaiting(s, s.state.waiting.reason, missing);
      this.deps.onChange();
      if (!missing) return true;
      if (!(await this.pause(backoffMs(attempt)))) return false;
    }
  }

  /** Waits `ms`; false when the Pod stopped meanwhile. */
  private async pause(ms: number): Promise<boolean> {
    try {
      await sleep(ms, undefined, { signal: this.stopping.signal });
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Pulls and copies the images of `containers`, each pull tried again after a back-off while it
   * fails (ErrImagePull, then ImagePullBackOff); false when the Pod stopped meanwhile.
   */
  private async prepare(containers: ContainerSpec[], statuses: ContainerStatus[]): Promise<boolean> {
    for (const [i, c] of containers.entries()) {
      const image = await this.pull(c, statuses[i]!);
      if (!image) return false;
      const root = path.join(this.dir, 'containers', c.name, 'rootfs');
      await fs.mkdir(path.dirname(root), { recursive: true });
      await run('cp', ['-a', '--reflink=auto', image.root, root]);
      this.images.set(c.name, image);
    }
    return true;
  }

  private async pull(c: ContainerSpec, status: ContainerStatus): Promise<ImageRoot | undefined> {
    for (let attempt = 0; ; attempt++) {
      if (this.stopped) return undefined;
      try {
        const image = await this.deps.rootfs(c.image);
        if (attempt > 0) {
          setWaiting(
            status,
            this.initialized || !this.initStatuses.length ? 'ContainerCreating' : 'PodInitializing',
          );
          this.deps.onChange();
        }
        return image;
      } catch (e) {
        if (this.stopped) return undefined;
        const failure = `failed to pull image "${c.image}": ${(e as Error).message}`;
        setWaiting(status, 'ErrImagePull', failure);
        this.deps.onChange();
        if (!(await this.pause(ERR_IMAGE_PULL_MS))) return undefined;
        setWaiting(
          status,
          'ImagePullBackOff',
          `Back-off pulling image "${c.image}": ErrImagePull: ${failure}`,
        );
        this.deps.onChange();
        if (!(await this.pause(backoffMs(attempt)))) return undefined;
      }
    }
  }

  /**
   * The launch of `c` for its next start, its environment read again; while a Secret, ConfigMap or
   * key is missing the container waits (CreateContainerConfigError) and it is tried again after a
   * back-off. Undefined when the Pod stopped or `c` cannot be configured at all (its status says why).
   */
  private async configure(
    c: ContainerSpec,
    status: ContainerStatus,
    volumes: Map<string, VolumeDir>,
  ): Promise<Launch | undefined> {
    const image = this.images.get(c.name)!;
    const root = path.join(this.dir, 'containers', c.name, 'rootfs');
    const ctx: EnvContext = { pod: this.pod, lookup: this.deps.lookup, capacity: NODE_CAPACITY };
    for (let attempt = 0; ; attempt++) {
      if (this.stopped) return undefined;
      try {
        const launch = launchOf(ctx, c, image.config, root, volumes);
        for (const b of launch.binds)
          if (!existsSync(b.hostPath)) await fs.mkdir(b.hostPath, { recursive: true });
        if (launch.command.length === 0)
          throw new ContainerConfigError(
            `image ${c.image} has no Entrypoint or Cmd and the container no command`,
          );
        this.launches.set(c.name, launch);
        return launch;
      } catch (e) {
        if (!(e instanceof ContainerConfigError)) throw e;
        setWaiting(status, 'CreateContainerConfigError', e.message);
        this.deps.onChange();
        if (!(e instanceof MissingSourceError)) return undefined;
        if (!(await this.pause(backoffMs(attempt)))) return undefined;
      }
    }
  }

  /**
   * Runs `c` until it exits for good; answers its last exit code, or undefined when it cannot be
   * configured (it stays waiting, its status saying why).
   */
  private async runContainer(
    c: ContainerSpec,
    status: ContainerStatus,
    volumes: Map<string, VolumeDir>,
    again: (exit: number) => boolean,
  ): Promise<number | undefined> {
    await fs.mkdir(path.join(this.dir, 'logs', c.name), { recursive: true });
    for (let attempt = 0; ; attempt++) {
      if (this.stopped) return 137;
      const launch = await this.configure(c, status, volumes);
      if (!launch) return this.stopped ? 137 : undefined;
      if (attempt > 0) status.restartCount++;
      // Only this run's and the previous one's logs are kept.
      if (attempt >= 2) await fs.rm(this.logPath(c.name, attempt - 2), { force: true });
      const proc = startContainer(this.deps.bwrap, launch, this.logPath(c.name, attempt), this.dir);
      this.processes.add(proc);
      setRunning(status, `kube-lite://${this.pod.metadata.uid}/${c.name}/${attempt}`);
      if (this.initialized) this.phase = 'Running';
      this.deps.onChange();
      const code = await proc.exited;
      this.processes.delete(proc);
      if (this.stopped) return code;
      setTerminated(status, code);
      if (!again(code)) {
        this.deps.onChange();
        return code;
      }
      const backoff = backoffMs(attempt);
      setRestarting(status, backoff / 1000, this.pod.metadata.name!);
      this.deps.onChange();
      if (!(await this.pause(backoff))) return code;
    }
  }
}

/** What a container without limits may use: this machine's cores and memory. */
const NODE_CAPACITY = { cpu: os.cpus().length, memory: os.totalmem() };

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
