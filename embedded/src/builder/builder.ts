// The sandbox builder of embedded mode (see Builder in @sandflow/images): a container is a
// writable copy of the image root in `<dataDir>/builders/<id>/rootfs`; every shell is its own
// bwrap over that folder (the runtime's sandbox: user, pid, ipc and uts namespaces, /proc, /dev,
// the organization's mount points, the user's UID and GID, the image's Env and WorkingDir), under a
// pseudo-terminal. /tmp is the container's own, shared by its shells. Commit diffs the folder
// against the image root and appends the changes as one layer to the source image (see target.ts
// for where it is pushed). The container is paused (freeze.ts) whenever the platform reads or
// writes its folder: for `exists`, the two ends of an upload, `changes`, and a commit's diff and
// layer, so a process inside cannot swap a folder for a symlink to the host under the platform's
// feet. Without bwrap, start refuses (UNAVAILABLE): a builder never falls back to a host shell.
//
// Options: dataDir ($SANDFLOW_DATA_DIR); layout (the image layout, `<dataDir>/images` by default:
// the pull cache, the source of commits and the local commit target); cacheDir (unpacked roots,
// `<dataDir>/image-roots`, shared with the runtime); credentials (registry credentials, or a
// function of the organization); registries (hosts always pushed to as registries); rootfs (the
// image roots; a store-backed provider over `layout` by default — commits read the source image
// from `layout`, so another provider must pull into it too); bwrap (found on PATH by default).
// Call reapBuilders(dataDir) once at start, before the first container, to clear a crash's leftovers.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { promisify } from 'node:util';
import {
  BuilderError,
  LayoutStore,
  appendLayer,
  diffRoots,
  layerBlob,
  layoutName,
  normalizeReference,
  parseReference,
  registryHost,
  resolveDir,
  storeRootfsProvider,
  writeLayer,
  type Builder,
  type BuilderChange,
  type BuilderContainer,
  type BuilderShell,
  type BuilderStartOptions,
  type CommitResult,
  type CommitTarget,
  type CredentialsByHost,
  type ImageRuntimeConfig,
  type OwnerOf,
  type RootChange,
  type RootfsProvider,
} from '@sandflow/images';
import { findBwrap, sandboxArgs } from '../bwrap/sandbox.js';
import { existsIn, writeInto, type Frozen } from './files.js';
import { Mutex, freezeTree } from './freeze.js';
import { buildersDir, ownMeta, removeTree, writeMeta, type BuilderMeta } from './reap.js';
import { spawnShell, type PtyShell } from './shell.js';
import { commitStore } from './target.js';

const run = promisify(execFile);

export interface BwrapBuilderOptions {
  dataDir: string;
  layout?: LayoutStore;
  cacheDir?: string;
  credentials?: CredentialsByHost | ((organization: string) => Promise<CredentialsByHost>);
  registries?: string[];
  rootfs?: RootfsProvider;
  bwrap?: string;
  /** How long a registry named in a commit's reference gets to answer before the layout is used. */
  probeTimeoutMs?: number;
}

interface Container {
  meta: BuilderMeta;
  dir: string;
  root: string;
  imageRoot: string;
  config: ImageRuntimeConfig;
  /** Owners the unpacker could not set (rootless), by path: what the image says they are. */
  owners: Record<string, [number, number]>;
  /** ctime of the copy when it was complete. */
  since: bigint;
  mounts: NonNullable<BuilderStartOptions['mounts']>;
  shells: Set<PtyShell>;
  /** Held while the container is paused or a shell is being spawned. */
  lock: Mutex;
}

/** Folders bwrap creates in the root as mount points when the image lacks them. */
const SANDBOX_MOUNT_POINTS = ['proc', 'dev'];

export const BWRAP_MISSING =
  'the sandbox builder needs bwrap (bubblewrap) on this machine (apt-get install bubblewrap); it never falls back to a shell on the host';

export class BwrapBuilder implements Builder {
  private readonly containers = new Map<string, Container>();
  private readonly layout: LayoutStore;
  private readonly bwrap: string | undefined;

  constructor(private readonly options: BwrapBuilderOptions) {
    this.layout = options.layout ?? new LayoutStore(path.join(options.dataDir, 'images'));
    this.bwrap = options.bwrap ?? findBwrap();
  }

  private async credentials(organization: string): Promise<CredentialsByHost> {
    const c = this.options.credentials;
    if (!c) return new Map();
    return typeof c === 'function' ? c(organization) : c;
  }

  private container(id: string): Container {
    const found = this.containers.get(id);
    if (!found) throw new BuilderError('NOT_FOUND', `no builder container ${id}`);
    return found;
  }

  async start(options: BuilderStartOptions): Promise<BuilderContainer> {
    if (!this.bwrap) throw new BuilderError('UNAVAILABLE', BWRAP_MISSING);
    const rootfs =
      this.options.rootfs ??
      storeRootfsProvider({
        layout: this.layout,
        cacheDir: this.options.cacheDir ?? path.join(this.options.dataDir, 'image-roots'),
        credentials: await this.credentials(options.organization),
      });
    const image = await rootfs(options.image, options.architecture);
    const id = randomBytes(8).toString('hex');
    const dir = path.join(buildersDir(this.options.dataDir), id);
    const meta = ownMeta({
      id,
      image: options.image,
      architecture: options.architecture,
      owner: options.owner,
      organization: options.organization,
      startedAt: new Date().toISOString(),
      uid: options.uid,
      gid: options.gid,
    });
    await fs.mkdir(dir, { recursive: true });
    const root = path.join(dir, 'rootfs');
    try {
      await writeMeta(dir, meta);
      await run('cp', ['-a', '--reflink=auto', image.root, root]);
      const since = (await fs.lstat(root, { bigint: true })).ctimeNs;
      this.containers.set(id, {
        meta,
        dir,
        root,
        imageRoot: image.root,
        config: image.config,
        owners: await readOwners(image.root),
        since,
        mounts: options.mounts ?? [],
        shells: new Set(),
        lock: new Mutex(),
      });
    } catch (error) {
      await removeTree(dir);
      throw new Error(`starting a builder from ${options.image} failed: ${(error as Error).message}`, {
        cause: error,
      });
    }
    return this.get(id)!;
  }

  get(id: string): BuilderContainer | undefined {
    const c = this.containers.get(id);
    if (!c) return undefined;
    const { image, architecture, owner, organization, startedAt } = c.meta;
    return { id, image, architecture, owner, organization, startedAt };
  }

  list(): BuilderContainer[] {
    return [...this.containers.keys()].map((id) => this.get(id)!);
  }

  async shell(id: string, size: { cols: number; rows: number }): Promise<BuilderShell> {
    const c = this.container(id);
    const login = await loginShell(c.root);
    if (!login) throw new BuilderError('UNAVAILABLE', `the image ${c.meta.image} has no /bin/sh`);
    const args = sandboxArgs({
      root: c.root,
      hostname: `sandbox-${id.slice(0, 8)}`,
      config: c.config,
      uid: c.meta.uid,
      gid: c.meta.gid,
      privateTmp: false,
      binds: c.mounts,
      env: { TERM: 'xterm-256color', LANG: 'C.UTF-8' },
    });
    const shell = await c.lock.run(async () => {
      const spawned = spawnShell(this.bwrap!, [...args, login, '-l'], size, c.dir);
      c.shells.add(spawned);
      return spawned;
    });
    void shell.exited.then(() => c.shells.delete(shell));
    return shell;
  }

  /** Runs `fn` with every process of the container stopped (see freeze.ts). */
  private frozen(c: Container): Frozen {
    return (fn) =>
      c.lock.run(async () => {
        const thaw = await freezeTree([...c.shells].map((s) => s.pid));
        try {
          return await fn();
        } finally {
          thaw();
        }
      });
  }

  async exists(id: string, p: string): Promise<boolean> {
    const c = this.container(id);
    return existsIn(c.root, c.config.WorkingDir ?? '/', p, this.frozen(c));
  }

  async writeFile(id: string, p: string, content: Readable, options: { maxBytes?: number } = {}) {
    const c = this.container(id);
    return writeInto(c.root, c.config.WorkingDir ?? '/', p, content, this.frozen(c), options.maxBytes);
  }

  private async diff(c: Container): Promise<RootChange[]> {
    // A mount point and the folders above it, as bwrap made them for the mount.
    const mountPoints = new Set(
      [...SANDBOX_MOUNT_POINTS, ...c.mounts.map((m) => m.mountPath.replace(/^\/+|\/+$/g, ''))].flatMap((m) =>
        m.split('/').map((_, i, parts) => parts.slice(0, i + 1).join('/')),
      ),
    );
    const all = await diffRoots(c.imageRoot, c.root, { since: c.since });
    return all.filter((x) => !(x.kind === 'added' && x.type === 'directory' && mountPoints.has(x.path)));
  }

  async changes(id: string): Promise<BuilderChange[]> {
    const c = this.container(id);
    const changes = await this.frozen(c)(() => this.diff(c));
    return changes.map((x) => ({ path: `/${x.path}`, kind: x.kind }));
  }

  async commit(id: string, target: CommitTarget): Promise<CommitResult> {
    const c = this.container(id);
    const ref = parseReference(target.reference);
    if (ref.digest) {
      throw new BuilderError('BAD_PATH', `commit to ${target.reference}: name a tag, not a digest`);
    }
    const source = parseReference(c.meta.image);
    const credentials = await this.credentials(c.meta.organization);
    const to = await commitStore(target.reference, ref, {
      layout: this.layout,
      credentials,
      registries: this.options.registries ?? [],
      probeTimeoutMs: this.options.probeTimeoutMs ?? 2_000,
    });
    const layerPath = path.join(c.dir, `layer-${randomBytes(6).toString('hex')}.tar.gz`);
    try {
      // Paused from the diff to the last byte of the layer: one consistent state of the folder.
      const { changes, layer } = await this.frozen(c)(async () => {
        const found = await this.diff(c);
        return { changes: found, layer: await writeLayer(c.root, found, layerPath, this.ownerOf(c, found)) };
      });
      const sameRegistry = to.kind === 'registry' && registryHost(source.domain) === registryHost(ref.domain);
      const result = await appendLayer({
        from: this.layout,
        fromRepository: layoutName(source),
        reference: source.digest ?? source.tag ?? 'latest',
        architecture: c.meta.architecture,
        to: to.store,
        toRepository: to.repository,
        ...(ref.tag ? { tag: ref.tag } : {}),
        ...(sameRegistry && source.repository !== ref.repository ? { mountFrom: source.repository } : {}),
        layer: layerBlob(layer),
        createdBy: `sandflow builder: ${changes.length} change(s) from ${c.meta.image}`,
      });
      return {
        reference: `${normalizeReference(target.reference.trim())}@${result.digest}`,
        digest: result.digest,
        layer: { digest: layer.digest, size: layer.size },
      };
    } finally {
      await fs.rm(layerPath, { force: true });
    }
  }

  /** Added paths are the builder user's; others keep the image's owner. */
  private ownerOf(c: Container, changes: RootChange[]): OwnerOf {
    const added = new Set(changes.filter((x) => x.kind === 'added').map((x) => x.path));
    const asRoot = process.getuid?.() === 0;
    return (rel, st) => {
      if (added.has(rel)) return [c.meta.uid, c.meta.gid];
      return c.owners[rel] ?? (asRoot ? [st.uid, st.gid] : [0, 0]);
    };
  }

  async stop(id: string): Promise<void> {
    const c = this.containers.get(id);
    if (!c) return;
    this.containers.delete(id);
    for (const shell of c.shells) shell.close();
    await Promise.all([...c.shells].map((s) => s.exited));
    await removeTree(c.dir);
  }

  /** Stops every container (the platform shutting down). */
  async close(): Promise<void> {
    await Promise.all([...this.containers.keys()].map((id) => this.stop(id)));
  }
}

/** owners.json beside an unpacked root (the unpack cache writes it), or nothing. */
async function readOwners(imageRoot: string): Promise<Record<string, [number, number]>> {
  try {
    return JSON.parse(await fs.readFile(path.join(path.dirname(imageRoot), 'owners.json'), 'utf8')) as Record<
      string,
      [number, number]
    >;
  } catch {
    return {};
  }
}

/** The image's shell: bash when it has one, else sh; looked up inside the root only. */
async function loginShell(root: string): Promise<string | undefined> {
  for (const name of ['bash', 'sh']) {
    try {
      const bin = await resolveDir(root, ['bin'], false);
      await fs.lstat(path.join(bin, name));
      return `/bin/${name}`;
    } catch {
      // not there
    }
  }
  return undefined;
}

export function createBuilder(options: BwrapBuilderOptions): BwrapBuilder {
  return new BwrapBuilder(options);
}
