// The bwrap runtime: each container step runs in its image's root filesystem inside new user, pid,
// ipc, uts and mount namespaces (bubblewrap, unprivileged), sharing the network. It is the process
// runtime with another launch plan, so logs, exit codes, Stop (the process group of bwrap, whose
// death takes the whole pid namespace with it), capacity and restart recovery are the same code.
//
// The step sees only: a throwaway writable root at / — an overlay over the image root where the
// kernel allows one in a user namespace (overlay.ts), else a copy of it (bwrap 0.8, Debian 12's, has
// no overlay; one spare copy per image root is made ahead, so a step usually only renames it into
// place); either is removed when the step ends and at the next start after a crash — a fresh
// /proc, a minimal /dev, a private /tmp, the run's shared folder at /sandflow, the script at
// /argo/staging/script and the step's mount points (read-write unless the pod says read-only; checked
// against the organization's mount points at the start, mount-policy.ts). Limits: RLIMIT_AS (memory, per process) and
// RLIMIT_CPU (CPU seconds, per process) through prlimit when the step has limits; nothing else.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { machineArchitecture, normalizeReference, type ImageRoot } from '@sandflow/images';
import { DEFAULT_PATH, findBwrap, sandboxArgs } from '../bwrap/sandbox.js';
import { mountRefusal, platformPathRefusal, type MountPolicyFor } from './mount-policy.js';
import { overlayablePath, overlayDirs, overlayLauncher, overlaySupported } from './overlay.js';
import {
  ProcessRuntime,
  SHARED_MOUNT,
  type LaunchPlan,
  type ProcessRuntimeOptions,
  type StepDirs,
  type StepSpec,
} from './runtime.js';

const run = promisify(execFile);

export { findBwrap };

/** A step's image root; `step` says whose run asks (its namespace decides the registry credentials). */
export type StepRootfsProvider = (
  image: string,
  architecture: string,
  step: Pick<StepSpec, 'namespace' | 'workflow'>,
) => Promise<ImageRoot>;

export interface BwrapRuntimeOptions extends ProcessRuntimeOptions {
  /** Any `RootfsProvider` of @sandflow/images fits. */
  rootfs: StepRootfsProvider;
  /** The bwrap binary; found on PATH when absent. */
  bwrap?: string;
  /** UID and GID of steps that do not say (the platform's own by default). */
  uid?: number;
  gid?: number;
  /** A step's root is an overlay over the image's (default: where the machine allows it), else a copy. */
  overlay?: boolean;
  /**
   * The organization's mount points of a step's namespace (mount-policy.ts): a step binding a host
   * folder outside them fails at its start, naming the path. Absent: host mounts are not checked.
   */
  mountPolicy?: MountPolicyFor;
  /** Host folders of the platform itself (its data folder) that no step may bind, in any namespace. */
  platformPaths?: string[];
}

const SCRIPT = '/argo/staging/script';

export class BwrapRuntime extends ProcessRuntime {
  override readonly name: string = 'bwrap';
  private readonly bwrap: string;
  /** Copies of image roots made ahead of the steps that will need them, one per root. */
  private readonly spares = new Map<string, Promise<string | undefined>>();
  private readonly sparesDir: string;
  readonly overlay: boolean;

  constructor(private readonly bwrapOptions: BwrapRuntimeOptions) {
    super(bwrapOptions);
    const found = bwrapOptions.bwrap ?? findBwrap();
    if (!found) throw new Error('the bwrap runtime needs bubblewrap (bwrap) on PATH');
    this.bwrap = found;
    this.overlay = bwrapOptions.overlay ?? overlaySupported();
    // Beside the runs (same filesystem, so a spare is renamed into a step); a crash leaves only spares.
    this.sparesDir = path.join(
      path.dirname(bwrapOptions.root),
      `${path.basename(bwrapOptions.root)}-bwrap-spares`,
    );
    try {
      fs.rmSync(this.sparesDir, { recursive: true, force: true });
    } catch {
      // Another runtime on this folder is copying into it (tests); what is left goes at its close.
    }
    fs.mkdirSync(this.sparesDir, { recursive: true });
  }

  private copyRoot(root: string, to: string) {
    return run('cp', ['-a', '--reflink=auto', root, to]);
  }

  private makeSpare(root: string) {
    const to = path.join(this.sparesDir, randomBytes(8).toString('hex'));
    this.spares.set(
      root,
      this.copyRoot(root, to).then(
        () => to,
        () => {
          fs.rmSync(to, { recursive: true, force: true });
          return undefined;
        },
      ),
    );
  }

  /** Puts a private copy of `root` at `stepRoot`: the spare when there is one, else a fresh copy. */
  private async rootFor(root: string, stepRoot: string) {
    const spare = this.spares.get(root);
    this.makeSpare(root);
    const ready = spare && (await spare);
    if (ready) {
      try {
        fs.renameSync(ready, stepRoot);
        return;
      } catch {
        // Gone (another runtime on this folder started and cleared the spares): copy instead.
      }
    }
    await this.copyRoot(root, stepRoot);
  }

  override async close() {
    await super.close();
    const pending = [...this.spares.values()];
    this.spares.clear();
    await Promise.all(pending);
    await fs.promises.rm(this.sparesDir, { recursive: true, force: true }).catch(() => undefined);
  }

  protected override async plan(step: StepSpec, dirs: StepDirs): Promise<LaunchPlan> {
    if (!step.image) throw new Error('the step names no image');
    const ownRefused = platformPathRefusal(step.mounts, this.bwrapOptions.platformPaths ?? []);
    if (ownRefused) throw new Error(ownRefused);
    if (step.mounts?.length && this.bwrapOptions.mountPolicy) {
      const policy = await this.bwrapOptions.mountPolicy(step.namespace);
      const refused = policy && mountRefusal(step.mounts, policy);
      if (refused) throw new Error(refused);
    }
    const image = normalizeReference(step.image);
    const arch = step.architecture ?? machineArchitecture();
    const { root, config } = await this.bwrapOptions.rootfs(image, arch, step).catch((e: unknown) => {
      throw new Error(`image ${image}: ${(e as Error).message}`, { cause: e });
    });
    const stepRoot = path.join(dirs.podDir, 'rootfs');
    fs.rmSync(stepRoot, { recursive: true, force: true });
    // Moved aside at once (the step's root is gone when its exit is reported) and removed off the
    // event loop: a root is hundreds of files. Leftovers of a crash go with the spares folder.
    const cleanup = () => {
      const trash = path.join(this.sparesDir, `trash-${randomBytes(8).toString('hex')}`);
      try {
        fs.renameSync(stepRoot, trash);
      } catch {
        fs.rmSync(stepRoot, { recursive: true, force: true });
        return;
      }
      void fs.promises.rm(trash, { recursive: true, force: true }).catch(() => undefined);
    };
    let launcher: string[] = [];
    let mountedRoot = stepRoot;
    if (this.overlay && overlayablePath(root) && overlayablePath(stepRoot)) {
      const overlay = overlayDirs(stepRoot, root);
      launcher = overlayLauncher(overlay);
      mountedRoot = overlay.merged;
    } else {
      try {
        await this.rootFor(root, stepRoot);
      } catch (e) {
        cleanup();
        throw new Error(`image ${image}: cannot copy its root for the step: ${(e as Error).message}`, {
          cause: e,
        });
      }
    }

    const binds = [{ hostPath: dirs.shared, mountPath: SHARED_MOUNT }, ...(step.mounts ?? [])];
    const command =
      step.command.length > 0 ? [...step.command] : [...(config.Entrypoint ?? []), ...(config.Cmd ?? [])];
    if (step.script !== undefined) {
      const scriptPath = path.join(dirs.podDir, 'script');
      fs.writeFileSync(scriptPath, step.script);
      binds.push({ hostPath: scriptPath, mountPath: SCRIPT, readOnly: true });
      command.push(SCRIPT);
    }
    if (command.length === 0) {
      cleanup();
      throw new Error(`image ${image} has no Entrypoint or Cmd and the step gives no command`);
    }
    const args = sandboxArgs({
      root: mountedRoot,
      hostname: step.pod,
      config,
      uid: step.uid ?? this.bwrapOptions.uid ?? process.getuid?.() ?? 0,
      gid: step.gid ?? this.bwrapOptions.gid ?? process.getgid?.() ?? 0,
      privateTmp: true,
      binds,
      env: step.env,
    });
    args.push(...command);

    const limits: string[] = [];
    if (step.limits?.memoryMiB) limits.push(`--as=${Math.floor(step.limits.memoryMiB * 1048576)}`);
    if (step.limits?.cpuSeconds) limits.push(`--cpu=${Math.ceil(step.limits.cpuSeconds)}`);
    const sandboxed = [...launcher, this.bwrap, ...args];
    const argv = limits.length > 0 ? ['prlimit', ...limits, '--', ...sandboxed] : sandboxed;
    return { argv, env: { PATH: process.env.PATH ?? DEFAULT_PATH }, cwd: dirs.workDir, cleanup };
  }

  override reapOrphan(namespace: string, workflow: string, pod: string) {
    super.reapOrphan(namespace, workflow, pod);
    fs.rmSync(path.join(this.podDir({ namespace, workflow, pod }), 'rootfs'), {
      recursive: true,
      force: true,
    });
  }
}
