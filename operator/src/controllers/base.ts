// A controller: a work queue of `namespace/name` keys and a reconcile function. Made paused, its queue
// takes keys at once but its workers wait for start() (the manager starts them once caches synced). A failing reconcile is logged and
// requeued with backoff; it never crashes the process. A conflict (the cache was behind a write) is
// expected: requeued quietly, the watch event of the newer version brings the key back anyway; so is
// NotFound (the object was deleted meanwhile).
import { WorkQueue, isConflict, isNotFound } from '@sandflow/kube';
import type { Logger } from 'pino';
import type { Metrics } from '../runtime/metrics.js';

export { keyOf, splitKey } from '@sandflow/kube';

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
    opts: { paused?: boolean } = {},
  ) {
    this.queue = new WorkQueue({ workers, paused: opts.paused ?? false }, (key) => this.run(key));
  }

  start() {
    this.queue.start();
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
      if (isNotFound(e)) {
        // Deleted while being reconciled: its delete event is on the way, nothing is left to do.
        this.queue.forget(key);
        this.metrics.reconciles.inc({ controller: this.name, result: 'success' });
        this.log.debug({ controller: this.name, key }, 'gone while reconciled');
        return;
      }
      const delay = this.queue.addRateLimited(key);
      if (isConflict(e)) {
        this.metrics.reconciles.inc({ controller: this.name, result: 'conflict' });
        this.log.debug({ controller: this.name, key, retryInMs: delay }, 'stale cache; requeued');
        return;
      }
      this.metrics.reconciles.inc({ controller: this.name, result: 'error' });
      this.metrics.errors.inc({ controller: this.name });
      this.log.warn({ err: e, controller: this.name, key, retryInMs: delay }, 'reconcile failed; requeued');
    } finally {
      this.metrics.duration.observe({ controller: this.name }, (performance.now() - t0) / 1000);
      this.metrics.queueDepth.set({ controller: this.name }, this.queue.depth);
    }
  }
}
