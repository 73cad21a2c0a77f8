// The builder Pods of every namespace, by builder id, as an informer keeps them: everything a builder
// is lives in its Pod, so each API replica sees every builder, whichever replica started it. The
// cache also says when a builder Pod ended (its lifetime ran out, its node went away) and when one
// went; what to do then is the PodBuilder's (pod-builder.ts).
import {
  makeInformer,
  type CoreV1Api,
  type KubeConfig,
  type V1Pod,
  type V1PodList,
} from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { BUILDER_LABEL } from './pod-spec.js';

export interface BuilderPodEvents {
  /** A builder's Pod whose process ended, not yet being deleted. */
  ended(pod: V1Pod, id: string): void;
  /** The Pod cached for builder `id` was deleted. */
  gone(id: string): void;
}

export class BuilderPodWatch {
  /** By builder id; the PodBuilder also writes what it created or deleted, ahead of the watch. */
  readonly pods = new Map<string, V1Pod>();
  /** Settles once the cache holds the builder Pods of every namespace. */
  readonly synced: Promise<void>;
  private readonly informer;
  private stopped = false;
  private restartTimer: NodeJS.Timeout | undefined;

  constructor(
    kubeConfig: KubeConfig,
    core: CoreV1Api,
    private readonly events: BuilderPodEvents,
    logger?: Pick<Logger, 'warn'>,
  ) {
    let listed = false;
    this.informer = makeInformer<V1Pod>(
      kubeConfig,
      '/api/v1/pods',
      async () => {
        const list = await core.listPodForAllNamespaces({ labelSelector: BUILDER_LABEL });
        listed = true;
        return list as V1PodList & { items: V1Pod[] };
      },
      BUILDER_LABEL,
    );
    for (const verb of ['add', 'update'] as const) this.informer.on(verb, (pod) => this.seen(pod));
    this.informer.on('delete', (pod) => this.deleted(pod));
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
      logger?.warn({ err: error }, 'builder Pod watch failed; restarting');
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
    // Its process ended (its lifetime ran out, its node went away): said on every update until
    // the Pod's deletion starts.
    if ((phase === 'Failed' || phase === 'Succeeded') && !pod.metadata?.deletionTimestamp)
      this.events.ended(pod, id);
  }

  private deleted(pod: V1Pod) {
    const id = pod.metadata?.labels?.[BUILDER_LABEL];
    if (!id || this.pods.get(id)?.metadata?.uid !== pod.metadata?.uid) return;
    this.pods.delete(id);
    this.events.gone(id);
  }

  async close(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.restartTimer);
    await this.informer.stop();
  }
}
