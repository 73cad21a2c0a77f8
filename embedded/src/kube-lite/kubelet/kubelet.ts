// kube-lite's kubelet: Pods of the store run on this machine (pod-runner.ts), their status written
// back (status.ts), `pods/exec` served into their running containers (exec-server.ts). A new Pod
// starts at once; a deleted one (or one marked for deletion) is stopped and its folders removed. At
// start, the Pods a previous process was running have lost their processes: they are marked
// Failed with reason NodeLost (never silently run again) and whatever folders they left removed.
import fs from 'node:fs/promises';
import path from 'node:path';
import {
  LayoutStore,
  credentialsFromSecret,
  machineArchitecture,
  normalizeReference,
  storeRootfsProvider,
  type CredentialsByHost,
} from '@sandflow/images';
import type { Logger } from 'pino';
import { findBwrap } from '../../bwrap/sandbox.js';
import { removeTree } from '../../builder/reap.js';
import { StatusError, badRequest, notFound } from '../errors.js';
import { POD_RESOURCE, resourceKey } from '../registry.js';
import type { RestStorage } from '../rest-storage.js';
import type { ObjectStore, StoreEvent } from '../store.js';
import type { KubeObject } from '../types.js';
import type { Lookup } from './config-sources.js';
import { nowIso } from './container-status.js';
import type { KubeletOptions } from './options.js';
import { parseLogOptions, readContainerLog, type PodLogStream } from './pod-log.js';
import { PodRunner } from './pod-runner.js';
import { podSpec, type Launch } from './pod-spec.js';
import { StatusWriter, lostStatus, podStatus } from './status.js';

export const BWRAP_MISSING_FOR_PODS =
  "kube-lite's kubelet needs bwrap (bubblewrap) on this machine (apt-get install bubblewrap) to run Pods";

const POD_KEY = resourceKey(POD_RESOURCE);
const SECRET_KEY = '/secrets';
const CONFIGMAP_KEY = '/configmaps';
const FINAL = new Set(['Succeeded', 'Failed']);

export interface ExecTarget {
  bwrap: string;
  launch: Launch;
  /** The Pod's folder (the working folder of the exec's bwrap on the host). */
  dir: string;
  /** Called when the Pod stops: the exec ends with it. */
  onStop(kill: () => void): () => void;
}

export class Kubelet {
  private readonly runners = new Map<string, PodRunner>();
  private readonly stopHooks = new Map<string, Set<() => void>>();
  private readonly writer: StatusWriter;
  private readonly podsDir: string;
  private readonly layout: LayoutStore;
  private readonly bwrap: string | undefined;
  private unsubscribe: () => void = () => undefined;

  constructor(
    private readonly options: KubeletOptions,
    private readonly store: ObjectStore,
    storage: RestStorage,
    private readonly log: Logger,
  ) {
    this.writer = new StatusWriter(POD_RESOURCE, store, storage, log);
    this.podsDir = path.join(options.dataDir, 'kubelet', 'pods');
    this.layout = options.layout ?? new LayoutStore(path.join(options.dataDir, 'images'));
    this.bwrap = options.bwrap ?? findBwrap();
  }

  async start(): Promise<void> {
    for (const pod of this.store.list(POD_KEY)) {
      const status = (pod.status ?? {}) as { phase?: string; containerStatuses?: unknown[] };
      if (FINAL.has(status.phase ?? '')) continue;
      this.writer.write(pod, lostStatus);
    }
    await removeTree(this.podsDir);
    await fs.mkdir(this.podsDir, { recursive: true });
    this.unsubscribe = this.store.subscribe({
      resource: POD_KEY,
      namespace: undefined,
      onEvent: (e) => this.onEvent(e),
    });
  }

  /**
   * The option's credentials for the Pod's namespace, overridden by the Pod's imagePullSecrets
   * (`kubernetes.io/dockerconfigjson` Secrets of its namespace; a missing one is skipped, as the
   * kubelet does).
   */
  private async credentials(pod: KubeObject): Promise<CredentialsByHost> {
    const namespace = pod.metadata.namespace!;
    const c = this.options.credentials;
    const out = new Map(c ? (typeof c === 'function' ? await c(namespace) : c) : []);
    for (const ref of podSpec(pod).imagePullSecrets ?? []) {
      const secret = ref.name ? this.store.get(SECRET_KEY, namespace, ref.name) : undefined;
      if (secret) for (const [host, cred] of credentialsFromSecret(secret)) out.set(host, cred);
    }
    return out;
  }

  /** The Secrets (data decoded) and ConfigMaps (data, binaryData for files) of `namespace`, as they are when asked. */
  private lookup(namespace: string): Lookup {
    return (kind, name, files) => {
      const obj = this.store.get(kind === 'Secret' ? SECRET_KEY : CONFIGMAP_KEY, namespace, name) as
        { data?: Record<string, string>; binaryData?: Record<string, string> } | undefined;
      if (!obj) return undefined;
      const keys = new Map<string, Buffer>();
      for (const [k, v] of Object.entries(obj.data ?? {}))
        keys.set(k, Buffer.from(String(v), kind === 'Secret' ? 'base64' : 'utf8'));
      if (kind === 'ConfigMap' && files)
        for (const [k, v] of Object.entries(obj.binaryData ?? {}))
          keys.set(k, Buffer.from(String(v), 'base64'));
      return keys;
    };
  }

  private onEvent(e: StoreEvent): void {
    const uid = e.object.metadata.uid!;
    if (e.type === 'DELETED' || e.object.metadata.deletionTimestamp) return void this.stopPod(uid);
    if (e.type === 'ADDED' && !this.runners.has(uid)) this.startPod(e.object);
  }

  private startPod(pod: KubeObject): void {
    const uid = pod.metadata.uid!;
    if (!this.bwrap) {
      this.writer.write(pod, () => ({
        phase: 'Failed',
        reason: 'UnexpectedAdmissionError',
        message: BWRAP_MISSING_FOR_PODS,
        startTime: nowIso(),
      }));
      return;
    }
    const onChange = () => this.writer.write(pod, (previous) => podStatus(runner, previous));
    const runner: PodRunner = new PodRunner(pod, {
      podsDir: this.podsDir,
      bwrap: this.bwrap,
      rootfs: async (image) =>
        storeRootfsProvider({
          layout: this.layout,
          cacheDir: path.join(this.options.dataDir, 'image-roots'),
          credentials: await this.credentials(pod),
        })(normalizeReference(image), machineArchitecture()),
      lookup: this.lookup(pod.metadata.namespace!),
      onChange,
    });
    this.runners.set(uid, runner);
    onChange();
    runner.start();
    this.log.debug({ namespace: pod.metadata.namespace, name: pod.metadata.name }, 'kubelet: pod started');
  }

  private async stopPod(uid: string): Promise<void> {
    const runner = this.runners.get(uid);
    if (!runner) return;
    this.runners.delete(uid);
    for (const kill of this.stopHooks.get(uid) ?? []) kill();
    this.stopHooks.delete(uid);
    await runner
      .stop()
      .catch((e: unknown) => this.log.warn({ err: e, uid }, 'kubelet: stopping a pod failed'));
  }

  /** The Pod and which of its containers a request names (the only one, or the annotated default). */
  private pick(namespace: string, name: string, container: string | undefined, withInit: boolean) {
    const pod = this.store.get(POD_KEY, namespace, name);
    if (!pod) throw notFound('pods', '', name);
    const spec = podSpec(pod);
    const names = (spec.containers ?? []).map((c) => c.name);
    const all = withInit ? [...names, ...(spec.initContainers ?? []).map((c) => c.name)] : names;
    let chosen = container || undefined;
    if (!chosen) {
      const annotated = pod.metadata.annotations?.['kubectl.kubernetes.io/default-container'];
      if (names.length === 1) chosen = names[0];
      else if (annotated && names.includes(annotated)) chosen = annotated;
      else
        throw new StatusError(
          400,
          'BadRequest',
          `a container name must be specified for pod ${name}, choose one of: [${names.join(' ')}]`,
        );
    }
    if (!all.includes(chosen!))
      throw new StatusError(400, 'BadRequest', `container ${chosen} is not valid for pod ${name}`);
    return { pod, container: chosen!, runner: this.runners.get(pod.metadata.uid!) };
  }

  /**
   * `pods/log` as kube-apiserver and the kubelet serve it (pod-log.ts): the options checked first
   * (400/422), then the Pod and container (404/400), then the run to read (the current one, or the
   * previous with `previous`); its output is read when the stream is.
   */
  async podLog(namespace: string, name: string, q: URLSearchParams): Promise<PodLogStream> {
    const options = parseLogOptions(name, q);
    const { container, runner } = this.pick(namespace, name, options.container, true);
    if (!runner)
      throw badRequest(`the logs of container ${container} in pod ${name} are gone (kube-lite restarted)`);
    const file = runner.logFile(container, options.previous);
    return { follow: options.follow, read: (signal) => readContainerLog(file, options, signal) };
  }

  /** Where an exec into `container` of the Pod runs; a Status error the client sees when it cannot. */
  execTarget(namespace: string, name: string, container: string | undefined): ExecTarget {
    const { pod, container: chosen, runner } = this.pick(namespace, name, container, false);
    const launch = runner?.running(chosen);
    if (!runner || !launch || !this.bwrap) throw new StatusError(400, 'BadRequest', 'container not running');
    const uid = pod.metadata.uid!;
    return {
      bwrap: this.bwrap,
      launch,
      dir: runner.dir,
      onStop: (kill) => {
        let hooks = this.stopHooks.get(uid);
        if (!hooks) this.stopHooks.set(uid, (hooks = new Set()));
        hooks.add(kill);
        return () => hooks.delete(kill);
      },
    };
  }

  /** Stops every Pod's processes (kube-lite shutting down); their objects stay as they are. */
  async close(): Promise<void> {
    this.unsubscribe();
    await this.writer.close();
    await Promise.all([...this.runners.keys()].map((uid) => this.stopPod(uid)));
  }
}
