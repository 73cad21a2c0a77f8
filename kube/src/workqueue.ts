// A rate-limited work queue in the manner of client-go's: a key is reconciled by one worker at a
// time (adding it meanwhile marks it dirty and it runs again afterwards), failed keys come back
// with per-key exponential backoff (5 ms doubling to 60 s) until forgotten, delayed adds for
// scheduled requeues. A queue made `paused` takes keys but starts no worker until start(): a
// controller fills it from its informers while their caches sync, and processes once they have.
export interface QueueOptions {
  workers: number;
  /** Hold keys without processing them until start(). */
  paused?: boolean;
  baseDelayMs?: number;
  maxDelayMs?: number;
}

export class WorkQueue {
  private readonly queue: string[] = [];
  private readonly queued = new Set<string>();
  private readonly active = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private running = 0;
  private closed = false;
  private paused: boolean;
  private idle: (() => void)[] = [];

  constructor(
    private readonly options: QueueOptions,
    private readonly handler: (key: string) => Promise<void>,
  ) {
    this.paused = options.paused ?? false;
  }

  /** Lets the workers take keys (of a queue made paused). */
  start() {
    this.paused = false;
    this.pump();
  }

  add(key: string) {
    if (this.closed) return;
    if (this.active.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.queued.has(key)) return;
    this.queued.add(key);
    this.queue.push(key);
    this.pump();
  }

  addAfter(key: string, ms: number) {
    if (this.closed) return;
    if (ms <= 0) return this.add(key);
    const at = Date.now() + ms;
    const t = this.timers.get(key);
    if (t && t.at <= at) return;
    if (t) clearTimeout(t.timer);
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, ms);
    timer.unref?.();
    this.timers.set(key, { at, timer });
  }

  addRateLimited(key: string) {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    const delay = Math.min((this.options.baseDelayMs ?? 5) * 2 ** n, this.options.maxDelayMs ?? 60_000);
    this.addAfter(key, delay);
    return delay;
  }

  forget(key: string) {
    this.failures.delete(key);
  }

  retries(key: string) {
    return this.failures.get(key) ?? 0;
  }

  get depth() {
    return this.queue.length;
  }

  private pump() {
    while (!this.closed && !this.paused && this.running < this.options.workers && this.queue.length > 0) {
      const key = this.queue.shift()!;
      this.queued.delete(key);
      this.active.add(key);
      this.running++;
      void this.handler(key)
        .catch(() => undefined)
        .finally(() => {
          this.running--;
          this.active.delete(key);
          if (this.dirty.delete(key)) this.add(key);
          this.pump();
          if (this.running === 0) this.idle.splice(0).forEach((f) => f());
        });
    }
  }

  async shutdown() {
    this.closed = true;
    for (const t of this.timers.values()) clearTimeout(t.timer);
    this.timers.clear();
    this.queue.length = 0;
    this.queued.clear();
    if (this.running > 0) await new Promise<void>((r) => this.idle.push(r));
  }
}
