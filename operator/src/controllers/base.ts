// A controller: a work queue of `namespace/name` keys and a reconcile function. A failing reconcile
// is logged and requeued with backoff; it never crashes the process.
import type { Logger } from 'pino';
import type { Metrics } from '../runtime/metrics.js';
import { WorkQueue } from '@sandflow/crds';

export interface ReconcileResult {
  /** Look again after this many ms (schedules, heartbeats, QUEUED runs). */
  requeueAfterMs?: number;
}

export class Controller {
  readonly queue: WorkQueue;
  constructor(
    readonly name: string,
    private readonly log: Logger,
    private readonly metrics: Metrics,
    private readonly reconcile: (key: string) => Promise<ReconcileResult | void>,
    workers = 4,
  ) {
    this.queue = new WorkQueue({ workers }, (key) => this.run(key));
  }

  add = (key: string) => {
    this.queue.add(key);
    this.metrics.queueDepth.set({ controller: this.name }, this.queue.depth);
  };

  private async run(key: string) {
    const t0 = performance.now();
    try {
      const r = await this.reconcile(key);
      this.queue.forget(key);
      this.metrics.reconciles.inc({ controller: this.name, result: 'success' });
      if (r?.requeueAfterMs !== undefined) this.queue.addAfter(key, r.requeueAfterMs);
    } catch (e) {
      const delay = this.queue.addRateLimited(key);
      this.metrics.reconciles.inc({ controller: this.name, result: 'error' });
      this.metrics.errors.inc({ controller: this.name });
      this.log.warn({ err: e, controller: this.name, key, retryInMs: delay }, 'reconcile failed; requeued');
    } finally {
      this.metrics.duration.observe({ controller: this.name }, (performance.now() - t0) / 1000);
      this.metrics.queueDepth.set({ controller: this.name }, this.queue.depth);
    }
  }
}

export const splitKey = (key: string): [string | undefined, string] => {
  const i = key.indexOf('/');
  return i < 0 ? [undefined, key] : [key.slice(0, i), key.slice(i + 1)];
};
export const keyOf = (o: { metadata?: { namespace?: string; name?: string } }) =>
  o.metadata?.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata!.name!;
