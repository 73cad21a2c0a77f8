// The sandbox builder of cluster mode (ARCHITECTURE "Sandbox build", cluster column): a container
// is a Pod from the source image in the organization's namespace (pod-spec.ts), kept alive; its
// shells are `pods/exec` under a TTY, uploads a tar through exec, `changes` a listing diffed
// against the one taken at start (snapshot.ts), and a commit the changed paths' `tar c` through
// exec, written as one layer and appended to the source image in its registry by the same OCI code
// as the embedded builder, pushed to the target registry. Everything a builder is lives in its Pod:
// `get` and `list` read a cache of the builder Pods of every namespace (an informer), so each API
// replica sees every builder, whichever replica started it.
//
// Options: kubeConfig; namespaceOf (the organization's namespace); credentials (registry
// credentials, or a function of the organization: what the source is resolved and the commit pushed
// with); helperImage (a static busybox at /bin/busybox); startTimeoutMs (until the Pod runs);
// terminationGraceSeconds; maxLifetimeSeconds (the cluster ends a builder older than this);
// resources (the builder container's); tmpDir (uploads are spooled and commits unpacked there);
// execTimeoutMs (look-ups and listings, 10 min by default); transferTimeoutMs (an upload's or a
// commit's tar, 1 h by default); localDomain (the registry host that names no
// registry: saving there is refused, a Pod cannot pull from it).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  CoreV1Api,
  makeInformer,
  type KubeConfig,
  type V1Pod,
  type V1PodList,
  type V1ResourceRequirements,
} from '@kubernetes/client-node';
import {
  BuilderError,
  ImageError,
  appendLayer,
  layerBlob,
  normalizeReference,
  parseReference,
  registryFor,
  registryHost,
  resolveImage,
  writeLayer,
  type Builder,
  type BuilderChange,
  type BuilderContainer,
  type BuilderShell,
  type BuilderStartOptions,
  type CommitResult,
  type CommitTarget,
  type CredentialsByHost,
  type RootChange,
} from '@sandflow/images';
import { isNotFound } from '@sandflow/kube';
import type { Logger } from 'pino';
import tar from 'tar-stream';
import { removeTree } from '../../builder/reap.js';
import { execCommand, execShell, type ExecResult } from './exec.js';
import {
  EXIT_IS_FOLDER,
  EXIT_NO_FOLDER,
  TAR_OUT_SCRIPT,
  UPLOAD_SCRIPT,
  containerPath,
  extractInto,
  scratchName,
  singleFileTar,
  spool,
  uploadTarget,
} from './files.js';
import {
  BUILDER_ANNOTATIONS,
  BUILDER_LABEL,
  BUSYBOX,
  MAIN_CONTAINER,
  REGISTRY_SECRET,
  SNAPSHOT_FILE,
  TOOLS_DIR,
  builderPod,
  containerOf,
  podProgress,
} from './pod-spec.js';
import { diffListings, listingScript, parseListing, tarPaths, type Listing } from './snapshot.js';

export interface PodBuilderOptions {
  kubeConfig: KubeConfig;
  namespaceOf: (organization: string) => Promise<string>;
  credentials?: CredentialsByHost | ((organization: string) => Promise<CredentialsByHost>);
  helperImage: string;
  startTimeoutMs?: number;
  terminationGraceSeconds?: number;
  maxLifetimeSeconds?: number;
  resources?: V1ResourceRequirements;
  tmpDir?: string;
  execTimeoutMs?: number;
  transferTimeoutMs?: number;
  localDomain?: string;
  logger?: Pick<Logger, 'warn' | 'error'>;
}

/** The shell a terminal gets: the image's bash or sh (as a login shell), else the tools' busybox. */
export const SHELL_SCRIPT = [
  'export TERM=xterm-256color LANG=C.UTF-8',
  'for s in /bin/bash /bin/sh; do if [ -x "$s" ]; then exec "$s" -l; fi; done',
  `export PATH="\${PATH:-/usr/bin:/bin}:${TOOLS_DIR}/bin"`,
  `exec ${BUSYBOX} sh -l`,
].join('\n');

const mountPathsOf = (pod: V1Pod) =>
  (pod.spec?.containers.find((c) => c.name === MAIN_CONTAINER)?.volumeMounts ?? [])
    .filter((m) => m.mountPath !== TOOLS_DIR)
    .map((m) => m.mountPath);

const messageOf = (error: unknown) => {
  const e = error as { body?: unknown; message?: string };
  const body = typeof e.body === 'string' ? e.body : undefined;
  try {
    return (body && (JSON.parse(body) as { message?: string }).message) || e.message || String(error);
  } catch {
    return e.message ?? String(error);
  }
};

export class PodBuilder implements Builder {
  private readonly core: CoreV1Api;
  private readonly pods = new Map<string, V1Pod>();
  private readonly shells = new Map<string, Set<BuilderShell>>();
  private readonly snapshots = new Map<string, Listing>();
  private readonly informer;
  private stopped = false;
  private restartTimer: NodeJS.Timeout | undefined;
  /** Settles once the cache holds the builder Pods of every namespace. */
  readonly synced: Promise<void>;

  constructor(private readonly options: PodBuilderOptions) {
    this.core = options.kubeConfig.makeApiClient(CoreV1Api);
    let listed = false;
    this.informer = makeInformer<V1Pod>(
      options.kubeConfig,
      '/api/v1/pods',
      async () => {
        const list = await this.core.listPodForAllNamespaces({ labelSelector: BUILDER_LABEL });
        listed = true;
        return list as V1PodList & { items: V1Pod[] };
      },
      BUILDER_LABEL,
    );
    for (const verb of ['add', 'update'] as const) this.informer.on(verb, (pod) => this.seen(pod));
    this.informer.on('delete', (pod) => this.gone(pod));
    let markSynced!: () => void;
    this.synced = new Promise((resolve) => (markSynced = resolve));
    // client-node's informer goes quiet after an error (kube/src/informer.ts does the same).
    const start = () => {
      listed = false;
      this.informer.start().then(
        () => listed && markSynced(),
        (error: unknown) => restart(error),
      );
    };
    const restart = (error: unknown) => {
      if (this.stopped || this.restartTimer) return;
      this.options.logger?.warn({ err: error }, 'builder Pod watch failed; restarting');
      this.restartTimer = setTimeout(() => {
        this.restartTimer = undefined;
        if (!this.stopped) start();
      }, 500);
      this.restartTimer.unref();
    };
    this.informer.on('error', restart);
    start();
  }

  private seen(pod: V1Pod) {
    const id = pod.metadata?.labels?.[BUILDER_LABEL];
    if (!id) return;
    this.pods.set(id, pod);
    const phase = pod.status?.phase;
    // A builder whose process ended (its lifetime ran out, its node went away) is of no use: its
    // Pod goes, whichever replica sees it first.
    if ((phase === 'Failed' || phase === 'Succeeded') && !pod.metadata?.deletionTimestamp) {
      this.deletePod(pod).catch((error: unknown) =>
        this.options.logger?.error({ err: error, builder: id }, 'removing an ended builder Pod failed'),
      );
    }
  }

  private gone(pod: V1Pod) {
    const id = pod.metadata?.labels?.[BUILDER_LABEL];
    if (!id || this.pods.get(id)?.metadata?.uid !== pod.metadata?.uid) return;
    this.pods.delete(id);
    this.forget(id);
  }

  private forget(id: string) {
    this.snapshots.delete(id);
    for (const shell of this.shells.get(id) ?? []) shell.close();
    this.shells.delete(id);
  }

  private async credentials(organization: string): Promise<CredentialsByHost> {
    const c = this.options.credentials;
    if (!c) return new Map();
    return typeof c === 'function' ? c(organization) : c;
  }

  /** The Pod of a builder that is there (not going away, not ended). */
  private pod(id: string): V1Pod {
    const pod = this.pods.get(id);
    if (!pod || !containerOf(pod)) throw new BuilderError('NOT_FOUND', `no builder container ${id}`);
    return pod;
  }

  private target(pod: V1Pod) {
    return { namespace: pod.metadata!.namespace!, pod: pod.metadata!.name!, container: MAIN_CONTAINER };
  }

  /** Runs `script` under the tools' shell in the builder container. */
  private run(
    pod: V1Pod,
    script: string,
    args: string[] = [],
    io: { stdin?: Readable; stdout?: tar.Extract; signal?: AbortSignal } = {},
  ): Promise<ExecResult> {
    const transfer = io.stdin !== undefined || io.stdout !== undefined;
    return execCommand(
      this.options.kubeConfig,
      this.target(pod),
      [BUSYBOX, 'sh', '-c', script, 'sh', ...args],
      {
        ...io,
        timeoutMs: transfer
          ? (this.options.transferTimeoutMs ?? 3_600_000)
          : (this.options.execTimeoutMs ?? 600_000),
      },
    );
  }

  async start(options: BuilderStartOptions): Promise<BuilderContainer> {
    const id = randomBytes(8).toString('hex');
    const ref = parseReference(options.image);
    if (this.options.localDomain && ref.domain === this.options.localDomain)
      throw new BuilderError(
        'UNAVAILABLE',
        `builder ${id}: ${options.image} is in no registry; in cluster mode a builder's image is pulled from one`,
      );
    const namespace = await this.options.namespaceOf(options.organization);
    const credentials = await this.credentials(options.organization);
    // Pinned: the Pod runs, and a commit appends to, this very manifest even if the tag moves.
    const resolved = await resolveImage(
      registryFor(ref, credentials),
      ref.repository,
      ref.digest ?? ref.tag ?? 'latest',
      options.architecture,
      options.image,
    );
    const body = builderPod({
      id,
      namespace,
      pinnedImage: `${ref.domain}/${ref.repository}@${resolved.digest}`,
      digest: resolved.digest,
      start: options,
      helperImage: this.options.helperImage,
      startedAt: new Date().toISOString(),
      ...((await this.hasPullSecret(namespace)) ? { pullSecret: REGISTRY_SECRET } : {}),
      ...(this.options.resources ? { resources: this.options.resources } : {}),
      terminationGraceSeconds: this.options.terminationGraceSeconds ?? 3,
      maxLifetimeSeconds: this.options.maxLifetimeSeconds ?? 86_400,
    });
    let pod: V1Pod;
    try {
      pod = await this.core.createNamespacedPod({ namespace, body });
    } catch (error) {
      throw new BuilderError(
        'UNAVAILABLE',
        `builder ${id}: the cluster refused its Pod in namespace ${namespace}: ${messageOf(error)}`,
        { cause: error },
      );
    }
    this.pods.set(id, pod);
    try {
      pod = await this.running(id, pod, options.image);
    } catch (error) {
      await this.deletePod(pod).catch(() => undefined);
      this.pods.delete(id);
      throw error;
    }
    if (this.pods.has(id)) this.pods.set(id, pod); // unless the watch saw it deleted meanwhile
    return containerOf(pod)!;
  }

  /** Whether the organization's registry Secret is in its namespace (a Pod naming a missing one still runs). */
  private async hasPullSecret(namespace: string): Promise<boolean> {
    try {
      await this.core.readNamespacedSecret({ name: REGISTRY_SECRET, namespace });
      return true;
    } catch (error) {
      return !isNotFound(error); // unknown (e.g. not allowed to read it): named, the kubelet tolerates absence
    }
  }

  /** Waits (bounded) until the builder container runs; why it never will, otherwise. */
  private async running(id: string, created: V1Pod, image: string): Promise<V1Pod> {
    const timeoutMs = this.options.startTimeoutMs ?? 180_000;
    const deadline = Date.now() + timeoutMs;
    const { namespace, name } = created.metadata as { namespace: string; name: string };
    let pod = created;
    for (;;) {
      const progress = podProgress(pod);
      if (progress.state === 'running') return pod;
      if (progress.state === 'failed') {
        const pinned = created.spec?.containers[0]?.image;
        const named = progress.image === pinned ? `${image} (${pinned})` : progress.image;
        throw new BuilderError(
          'UNAVAILABLE',
          progress.image
            ? `builder ${id}: the cluster could not run the image ${named}: ${progress.why}`
            : `builder ${id} (${image}) did not start: ${progress.why}`,
        );
      }
      if (Date.now() > deadline)
        throw new BuilderError(
          'UNAVAILABLE',
          `builder ${id} (${image}) was not running after ${Math.round(timeoutMs / 1000)} s: ${progress.why}`,
        );
      await sleep(300);
      try {
        pod = await this.core.readNamespacedPod({ name, namespace });
      } catch (error) {
        throw new Error(`builder ${id}: reading its Pod ${namespace}/${name} failed: ${messageOf(error)}`, {
          cause: error,
        });
      }
    }
  }

  get(id: string): BuilderContainer | undefined {
    const pod = this.pods.get(id);
    return pod ? containerOf(pod) : undefined;
  }

  list(): BuilderContainer[] {
    return [...this.pods.values()].flatMap((pod) => containerOf(pod) ?? []);
  }

  async shell(id: string, size: { cols: number; rows: number }): Promise<BuilderShell> {
    const pod = this.pod(id);
    let shell;
    try {
      shell = await execShell(
        this.options.kubeConfig,
        this.target(pod),
        [BUSYBOX, 'sh', '-c', SHELL_SCRIPT],
        size,
      );
    } catch (error) {
      throw new Error(`builder ${id}: opening a shell failed: ${messageOf(error)}`, { cause: error });
    }
    let open = this.shells.get(id);
    if (!open) this.shells.set(id, (open = new Set()));
    open.add(shell);
    void shell.exited.then(() => this.shells.get(id)?.delete(shell));
    return shell;
  }

  async exists(id: string, p: string): Promise<boolean> {
    const pod = this.pod(id);
    const where = containerPath(p);
    const result = await this.run(pod, '[ -e "$1" ] || [ -L "$1" ]', [where]).catch((error: unknown) => {
      throw new Error(`builder ${id}: looking for ${p} failed: ${messageOf(error)}`, { cause: error });
    });
    if (result.exitCode > 1)
      throw new Error(
        `builder ${id}: looking for ${p} failed (exit ${result.exitCode}): ${result.stderr.trim()}`,
      );
    return result.exitCode === 0;
  }

  async writeFile(
    id: string,
    p: string,
    content: Readable,
    options: { maxBytes?: number } = {},
  ): Promise<{ size: number }> {
    const pod = this.pod(id);
    const { dir, name } = uploadTarget(p);
    const spooled = path.join(this.options.tmpDir ?? os.tmpdir(), `sandflow-upload-${id}-${scratchName()}`);
    const { size } = await spool(content, spooled, `the upload to ${p}`, options.maxBytes);
    try {
      const scratch = scratchName();
      const result = await this.run(pod, UPLOAD_SCRIPT, [dir, name, scratch], {
        stdin: singleFileTar(spooled, size, scratch),
      }).catch((error: unknown) => {
        throw new Error(`builder ${id}: sending ${p} failed: ${messageOf(error)}`, { cause: error });
      });
      const why = result.stderr.trim();
      if (result.exitCode === EXIT_IS_FOLDER) throw new BuilderError('BAD_PATH', `"${p}" is a folder`);
      if (result.exitCode === EXIT_NO_FOLDER)
        throw new BuilderError('BAD_PATH', `"${p}": its folder cannot be made: ${why}`);
      if (result.exitCode !== 0)
        throw /denied|read-only/i.test(why)
          ? new BuilderError('BAD_PATH', `"${p}": ${why}`)
          : new Error(`builder ${id}: writing ${p} failed (exit ${result.exitCode}): ${why}`);
      return { size };
    } finally {
      await fs.rm(spooled, { force: true });
    }
  }

  /** The listing taken when the builder started (it never changes: kept once read). */
  private async startListing(id: string, pod: V1Pod): Promise<Listing> {
    const known = this.snapshots.get(id);
    if (known) return known;
    const result = await this.run(pod, `exec ${BUSYBOX} cat ${SNAPSHOT_FILE}`);
    if (result.exitCode !== 0)
      throw new Error(`builder ${id}: its start snapshot cannot be read: ${result.stderr.trim()}`);
    const listing = parseListing(result.stdout.toString('utf8'), mountPathsOf(pod));
    if (this.pods.has(id)) this.snapshots.set(id, listing);
    return listing;
  }

  private async rootChanges(id: string, pod: V1Pod): Promise<RootChange[]> {
    const mounts = mountPathsOf(pod);
    try {
      const [before, now] = await Promise.all([
        this.startListing(id, pod),
        this.run(pod, `${listingScript(mounts)} 2>/dev/null`),
      ]);
      // find says 1 when a folder could not be read (not the user's to read): the rest is listed.
      if (now.exitCode !== 0 && now.stdout.length === 0)
        throw new Error(`listing its files failed (exit ${now.exitCode}): ${now.stderr.trim()}`);
      return diffListings(before, parseListing(now.stdout.toString('utf8'), mounts));
    } catch (error) {
      if (error instanceof BuilderError || (error as Error).message.startsWith(`builder ${id}`)) throw error;
      throw new Error(`builder ${id}: ${messageOf(error)}`, { cause: error });
    }
  }

  async changes(id: string): Promise<BuilderChange[]> {
    const pod = this.pod(id);
    return (await this.rootChanges(id, pod)).map((c) => ({ path: `/${c.path}`, kind: c.kind }));
  }

  async commit(id: string, target: CommitTarget): Promise<CommitResult> {
    const pod = this.pod(id);
    const container = containerOf(pod)!;
    const ref = parseReference(target.reference);
    if (ref.digest)
      throw new BuilderError('BAD_PATH', `commit to ${target.reference}: name a tag, not a digest`);
    if (this.options.localDomain && ref.domain === this.options.localDomain)
      throw new BuilderError(
        'UNAVAILABLE',
        `builder ${id}: saving needs a registry in cluster mode (set the platform default registry or the organization's); ${target.reference} names none`,
      );
    const digest = pod.metadata?.annotations?.[BUILDER_ANNOTATIONS.digest];
    if (!digest) throw new Error(`builder ${id}: its Pod does not say which image digest it runs`);
    const source = parseReference(container.image);
    const credentials = await this.credentials(container.organization);
    const changes = await this.rootChanges(id, pod);
    const work = await fs.mkdtemp(path.join(this.options.tmpDir ?? os.tmpdir(), `sandflow-commit-${id}-`));
    const root = path.join(work, 'root');
    await fs.mkdir(root);
    try {
      const owners = await this.fetchChanges(id, pod, changes, root);
      const layer = await writeLayer(
        root,
        changes,
        path.join(work, 'layer.tar.gz'),
        (rel) => owners.get(rel) ?? [0, 0],
      );
      const sameRegistry = registryHost(source.domain) === registryHost(ref.domain);
      const result = await appendLayer({
        from: registryFor(source, credentials),
        fromRepository: source.repository,
        reference: digest,
        architecture: container.architecture,
        to: registryFor(ref, credentials),
        toRepository: ref.repository,
        ...(ref.tag ? { tag: ref.tag } : {}),
        ...(sameRegistry && source.repository !== ref.repository ? { mountFrom: source.repository } : {}),
        layer: layerBlob(layer),
        createdBy: `sandflow builder: ${changes.length} change(s) from ${container.image}`,
      });
      return {
        reference: `${normalizeReference(target.reference.trim())}@${result.digest}`,
        digest: result.digest,
        layer: { digest: layer.digest, size: layer.size },
      };
    } catch (error) {
      if (error instanceof BuilderError || error instanceof ImageError) throw error;
      throw new Error(`builder ${id}: saving to ${target.reference} failed: ${messageOf(error)}`, {
        cause: error,
      });
    } finally {
      await removeTree(work);
    }
  }

  /** The changed paths (and their folders) out of the container into `root`; their owners. */
  private async fetchChanges(id: string, pod: V1Pod, changes: RootChange[], root: string) {
    const wanted = tarPaths(changes);
    if (wanted.length === 0) return new Map<string, [number, number]>();
    const extract = tar.extract();
    const stop = new AbortController();
    const extracting = extractInto(extract, root, new Set(wanted)).catch((error: unknown) => {
      stop.abort(error);
      throw error;
    });
    const sent = this.run(pod, TAR_OUT_SCRIPT, [], {
      stdin: Readable.from([Buffer.from(`${wanted.join('\0')}\0`)]),
      stdout: extract,
      signal: stop.signal,
    }).finally(() => extract.end(undefined));
    const [tarred, extracted] = await Promise.allSettled([sent, extracting]);
    if (extracted.status === 'rejected') throw extracted.reason;
    if (tarred.status === 'rejected') throw tarred.reason;
    if (tarred.value.exitCode !== 0)
      throw new Error(
        `builder ${id}: tar of its changes exited ${tarred.value.exitCode} (a file changed during the save?): ${tarred.value.stderr.trim()}`,
      );
    const missing = wanted.filter((p) => !extracted.value.seen.has(p));
    if (missing.length > 0)
      throw new Error(
        `builder ${id}: ${missing
          .slice(0, 5)
          .map((p) => `/${p}`)
          .join(', ')} changed during the save`,
      );
    return extracted.value.owners;
  }

  private async deletePod(pod: V1Pod): Promise<void> {
    try {
      await this.core.deleteNamespacedPod({
        name: pod.metadata!.name!,
        namespace: pod.metadata!.namespace!,
        gracePeriodSeconds: this.options.terminationGraceSeconds ?? 3,
      });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }

  async stop(id: string): Promise<void> {
    const pod = this.pods.get(id);
    this.forget(id);
    if (!pod) return;
    const { namespace, name } = pod.metadata as { namespace: string; name: string };
    try {
      await this.deletePod(pod);
    } catch (error) {
      throw new Error(`builder ${id}: deleting its Pod ${namespace}/${name} failed: ${messageOf(error)}`, {
        cause: error,
      });
    }
    // Gone when this returns: its processes ended and its name is free.
    const deadline = Date.now() + ((this.options.terminationGraceSeconds ?? 3) + 30) * 1000;
    for (;;) {
      try {
        const now = await this.core.readNamespacedPod({ name, namespace });
        if (now.metadata?.uid !== pod.metadata?.uid) break;
      } catch (error) {
        if (isNotFound(error)) break;
        throw new Error(`builder ${id}: reading its Pod ${namespace}/${name} failed: ${messageOf(error)}`, {
          cause: error,
        });
      }
      if (Date.now() > deadline)
        throw new Error(`builder ${id}: its Pod ${namespace}/${name} was still there after deletion`);
      await sleep(200);
    }
    if (this.pods.get(id)?.metadata?.uid === pod.metadata?.uid) this.pods.delete(id);
  }

  /** Stops watching and ends this replica's shells; the builders stay (another replica may serve them). */
  async close(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.restartTimer);
    for (const id of [...this.shells.keys()]) this.forget(id);
    await this.informer.stop();
  }
}
