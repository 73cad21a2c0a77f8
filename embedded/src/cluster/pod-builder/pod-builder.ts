// The sandbox builder of cluster mode (ARCHITECTURE "Sandbox build", cluster column): a container
// is a Pod from the source image in the organization's namespace (pod-spec.ts, pod-lifecycle.ts),
// kept alive; its shells are `pods/exec` under a TTY (exec.ts), uploads a tar through exec
// (files.ts), `changes` a listing diffed against the one taken at start (snapshot.ts), and a commit
// the changed paths' `tar c` through exec, written as one layer and appended to the source image in
// its registry by the same OCI code as the embedded builder, pushed to the target registry
// (commit.ts). Everything a builder is lives in its Pod: `get` and `list` read a cache of the
// builder Pods of every namespace (an informer, builder-pod-watch.ts), so each API replica sees
// every builder, whichever replica started it.
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
import type { Readable } from 'node:stream';
import { CoreV1Api, type KubeConfig, type V1Pod, type V1ResourceRequirements } from '@kubernetes/client-node';
import {
  BuilderError,
  parseReference,
  registryFor,
  resolveImage,
  type Builder,
  type BuilderChange,
  type BuilderContainer,
  type BuilderShell,
  type BuilderStartOptions,
  type CommitResult,
  type CommitTarget,
  type CredentialsByHost,
} from '@sandflow/images';
import type { Logger } from 'pino';
import { BuilderPodWatch } from './builder-pod-watch.js';
import { commitChanges, readStartListing, rootChanges, type BuilderAt } from './commit.js';
import { messageOf } from './error-message.js';
import { execCommand, execShell, type RunScript } from './exec.js';
import { pathExists, writeUpload } from './files.js';
import {
  createBuilderPod,
  deleteBuilderPod,
  hasPullSecret,
  removeBuilderPod,
  untilRunning,
} from './pod-lifecycle.js';
import { BUSYBOX, MAIN_CONTAINER, REGISTRY_SECRET, TOOLS_DIR, builderPod, containerOf } from './pod-spec.js';
import type { Listing } from './snapshot.js';

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

export class PodBuilder implements Builder {
  private readonly core: CoreV1Api;
  private readonly watch: BuilderPodWatch;
  private readonly shells = new Map<string, Set<BuilderShell>>();
  private readonly snapshots = new Map<string, Listing>();
  /** Settles once the cache holds the builder Pods of every namespace. */
  readonly synced: Promise<void>;

  constructor(private readonly options: PodBuilderOptions) {
    this.core = options.kubeConfig.makeApiClient(CoreV1Api);
    this.watch = new BuilderPodWatch(
      options.kubeConfig,
      this.core,
      {
        // A builder whose process ended is of no use: its Pod goes, whichever replica sees it first.
        ended: (pod, id) =>
          void this.deletePod(pod).catch((error: unknown) =>
            this.options.logger?.error({ err: error, builder: id }, 'removing an ended builder Pod failed'),
          ),
        gone: (id) => this.forget(id),
      },
      options.logger,
    );
    this.synced = this.watch.synced;
  }

  /** The builder Pods of every namespace, by builder id. */
  private get pods(): Map<string, V1Pod> {
    return this.watch.pods;
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

  /** Runs scripts under the tools' shell in the builder container. */
  private runner(pod: V1Pod): RunScript {
    return (script, args = [], io = {}) => {
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
    };
  }

  /** Builder `id` for commit.ts: its start listing read once (it never changes) and kept. */
  private at(id: string, pod: V1Pod): BuilderAt {
    const run = this.runner(pod);
    return {
      id,
      pod,
      run,
      startListing: async () => {
        const known = this.snapshots.get(id);
        if (known) return known;
        const listing = await readStartListing(id, pod, run);
        if (this.pods.has(id)) this.snapshots.set(id, listing);
        return listing;
      },
    };
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
      ...((await hasPullSecret(this.core, namespace)) ? { pullSecret: REGISTRY_SECRET } : {}),
      ...(this.options.resources ? { resources: this.options.resources } : {}),
      terminationGraceSeconds: this.options.terminationGraceSeconds ?? 3,
      maxLifetimeSeconds: this.options.maxLifetimeSeconds ?? 86_400,
    });
    let pod = await createBuilderPod(this.core, id, namespace, body);
    this.pods.set(id, pod);
    try {
      pod = await untilRunning(this.core, id, pod, options.image, this.options.startTimeoutMs ?? 180_000);
    } catch (error) {
      await this.deletePod(pod).catch(() => undefined);
      this.pods.delete(id);
      throw error;
    }
    if (this.pods.has(id)) this.pods.set(id, pod); // unless the watch saw it deleted meanwhile
    return containerOf(pod)!;
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
    return pathExists(this.runner(this.pod(id)), id, p);
  }

  async writeFile(
    id: string,
    p: string,
    content: Readable,
    options: { maxBytes?: number } = {},
  ): Promise<{ size: number }> {
    const run = this.runner(this.pod(id));
    return writeUpload(run, id, p, content, { tmpDir: this.options.tmpDir, maxBytes: options.maxBytes });
  }

  async changes(id: string): Promise<BuilderChange[]> {
    const pod = this.pod(id);
    return (await rootChanges(this.at(id, pod))).map((c) => ({ path: `/${c.path}`, kind: c.kind }));
  }

  async commit(id: string, target: CommitTarget): Promise<CommitResult> {
    const pod = this.pod(id);
    return commitChanges(this.at(id, pod), containerOf(pod)!, target, {
      credentials: (organization) => this.credentials(organization),
      tmpDir: this.options.tmpDir,
      localDomain: this.options.localDomain,
    });
  }

  private deletePod(pod: V1Pod): Promise<void> {
    return deleteBuilderPod(this.core, pod, this.options.terminationGraceSeconds ?? 3);
  }

  async stop(id: string): Promise<void> {
    const pod = this.pods.get(id);
    this.forget(id);
    if (!pod) return;
    await removeBuilderPod(this.core, id, pod, this.options.terminationGraceSeconds ?? 3);
    if (this.pods.get(id)?.metadata?.uid === pod.metadata?.uid) this.pods.delete(id);
  }

  /** Stops watching and ends this replica's shells; the builders stay (another replica may serve them). */
  async close(): Promise<void> {
    for (const id of [...this.shells.keys()]) this.forget(id);
    await this.watch.close();
  }
}
