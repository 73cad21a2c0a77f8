// A keyed work queue: a key is processed by one worker at a time; adding a key while it is being
// processed marks it dirty so it runs once more afterwards; delayed adds for wake-ups and backoff.
export class KeyQueue {
  private readonly queue: string[] = [];
  private readonly queued = new Set<string>();
  private readonly active = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly timers = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private running = 0;
  private closed = false;
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly concurrency: number,
    private readonly worker: (key: string) => Promise<void>,
  ) {}

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
    const existing = this.timers.get(key);
    if (existing && existing.at <= at) return;
    if (existing) clearTimeout(existing.timer);
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, ms);
    timer.unref?.();
    this.timers.set(key, { at, timer });
  }

  get depth() {
    return this.queue.length;
  }

  private pump() {
    while (!this.closed && this.running < this.concurrency && this.queue.length > 0) {
      const key = this.queue.shift()!;
      this.queued.delete(key);
      this.active.add(key);
      this.running++;
      void this.worker(key)
        .catch(() => undefined)
        .finally(() => {
          this.running--;
          this.active.delete(key);
          if (this.dirty.delete(key)) this.add(key);
          this.pump();
          if (this.running === 0 && this.queue.length === 0) this.idleWaiters.splice(0).forEach((f) => f());
        });
    }
  }

  async close() {
    this.closed = true;
    for (const t of this.timers.values()) clearTimeout(t.timer);
    this.timers.clear();
    this.queue.length = 0;
    this.queued.clear();
    if (this.running > 0) await new Promise<void>((r) => this.idleWaiters.push(r));
  }
}
