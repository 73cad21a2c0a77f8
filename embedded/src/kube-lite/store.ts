import type { Persistence } from './persistence.js';
import type { KubeObject } from './types.js';

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoreEvent {
  type: EventType;
  resource: string;
  namespace: string;
  rv: number;
  object: KubeObject;
  /** The object before a MODIFIED, so selector watchers can see it leave or enter. */
  previous?: KubeObject | undefined;
}

export interface WatchListener {
  resource: string;
  namespace: string | undefined;
  onEvent(event: StoreEvent): void;
}

/**
 * The watch history: at most this many events, none older than HISTORY_MS. Each event holds a
 * version of its object that nothing else may hold any more (a Workflow rewritten at every step
 * keeps every version here), so the history is bounded in time as kube-apiserver's is by etcd's
 * compaction (every 5 minutes by default); a watch resuming from further back gets 410 Expired
 * and lists again, as from a real cluster. Clients asking for bookmarks get a fresh
 * resourceVersion every few seconds, so their resumes stay inside the window.
 */
export const LOG_CAPACITY = 50_000;
export const HISTORY_MS = 5 * 60_000;

const objectKey = (namespace: string, name: string) => `${namespace}/${name}`;
const writeKey = (resource: string, namespace: string, name: string) => `${resource}|${namespace}|${name}`;

/**
 * A write computed from a state of its key that is no longer (or not yet) the committed one:
 * another write to the key went first or is still being committed. The writer reads the key
 * again once `settled` resolves and retries — kube-apiserver's GuaranteedUpdate on a conflict.
 */
export class WriteRace extends Error {
  constructor(readonly settled: Promise<void>) {
    super('another write to this object went first');
  }
}

/**
 * Every object kube-lite holds, in memory, with one resourceVersion sequence across
 * all kinds (like etcd's revision). Stored objects are never mutated: writers pass a
 * new object. The event log backs watches that resume from a resourceVersion. Only
 * committed writes are served: a write that failed to persist never appears.
 */
export class ObjectStore {
  private objects = new Map<string, Map<string, KubeObject>>();
  private log: StoreEvent[] = [];
  /** When each event of `log` was emitted (ms, from `now`). */
  private logTimes: number[] = [];
  private logStart = 0;
  private listeners = new Map<string, Set<WatchListener>>();
  private owners = new Map<string, Set<string>>();
  private uids = new Map<string, string>();
  /** The last resourceVersion handed out (to a write committed, in flight or failed). */
  private _rv = 0;
  /** The resourceVersion of the last committed write: what lists and bookmarks report. */
  private _committedRv = 0;
  /** Each key's uncommitted write, settling (never rejecting) once it is committed or failed. */
  private inFlight = new Map<string, Promise<void>>();

  private readonly historyMs: number;
  private readonly logCapacity: number;
  private readonly now: () => number;

  constructor(
    private readonly persistence: Persistence,
    options: { historyMs?: number; logCapacity?: number; now?: () => number } = {},
  ) {
    this.historyMs = options.historyMs ?? HISTORY_MS;
    this.logCapacity = options.logCapacity ?? LOG_CAPACITY;
    this.now = options.now ?? Date.now;
  }

  /** Events the watch history holds (what a resuming watch can be sent). */
  get historyLength(): number {
    return this.log.length - this.logStart;
  }

  get resourceVersion(): number {
    return this._committedRv;
  }

  /** The oldest resourceVersion a watch can resume from. */
  get oldestWatchableRv(): number {
    return this.log[this.logStart]?.rv !== undefined ? this.log[this.logStart]!.rv - 1 : this._committedRv;
  }

  async load(): Promise<void> {
    const { objects, resourceVersion } = await this.persistence.load();
    for (const o of objects) this.bucket(o.resource).set(objectKey(o.namespace, o.name), o.body);
    for (const o of objects) this.indexOwners(o.resource, o.body, undefined);
    this._rv = resourceVersion;
    this._committedRv = resourceVersion;
  }

  /**
   * Forget the event log: watches can resume only from now on. Called once the server
   * starts serving, like kube-apiserver's watch cache that begins at its initial list.
   */
  startWatchHistory(): void {
    this.log = [];
    this.logTimes = [];
    this.logStart = 0;
  }

  get(resource: string, namespace: string, name: string): KubeObject | undefined {
    return this.objects.get(resource)?.get(objectKey(namespace, name));
  }

  /** Objects of a resource (optionally one namespace), ordered by namespace/name. */
  list(resource: string, namespace?: string): KubeObject[] {
    const bucket = this.objects.get(resource);
    if (!bucket) return [];
    const keys = [...bucket.keys()].sort();
    const prefix = namespace === undefined ? undefined : `${namespace}/`;
    const out: KubeObject[] = [];
    for (const k of keys) if (!prefix || k.startsWith(prefix)) out.push(bucket.get(k)!);
    return out;
  }

  count(resource: string): number {
    return this.objects.get(resource)?.size ?? 0;
  }

  resources(): string[] {
    return [...this.objects.keys()];
  }

  /** uids' dependents: `resource|namespace|name` of objects whose ownerReferences name the uid. */
  dependentsOf(uid: string): { resource: string; namespace: string; name: string }[] {
    return [...(this.owners.get(uid) ?? [])].map((k) => {
      const [resource, namespace, name] = k.split('|') as [string, string, string];
      return { resource, namespace, name };
    });
  }

  /** Where the object with this uid lives, if it still exists. */
  byUid(uid: string): { resource: string; namespace: string; name: string } | undefined {
    const k = this.uids.get(uid);
    if (!k) return undefined;
    const [resource, namespace, name] = k.split('|') as [string, string, string];
    return { resource, namespace, name };
  }

  /**
   * Store a new or changed object, computed from `expected` (the object read from this store, or
   * undefined for a create). The write is persisted first; only once it is committed does the
   * object become what get/list serve, its resourceVersion the store's, and its event reach the
   * watchers (as kube-apiserver answers and watches from etcd after the commit). Resolves to the
   * stored object, with its new resourceVersion; rejects — and nothing is served — when the
   * commit fails. Throws WriteRace when the key changed since `expected` was read or another
   * write to it is not committed yet: read it again once `settled` resolves and retry.
   */
  put(resource: string, object: KubeObject, expected: KubeObject | undefined): Promise<KubeObject> {
    const namespace = object.metadata.namespace ?? '';
    const name = object.metadata.name!;
    this.claim(resource, namespace, name, expected);
    const rv = ++this._rv;
    const stored: KubeObject = { ...object, metadata: { ...object.metadata, resourceVersion: String(rv) } };
    return this.commit(resource, namespace, name, rv, stored, () => {
      const bucket = this.bucket(resource);
      const previous = bucket.get(objectKey(namespace, name));
      bucket.set(objectKey(namespace, name), stored);
      this.indexOwners(resource, stored, previous);
      return { type: previous ? 'MODIFIED' : 'ADDED', resource, namespace, rv, object: stored, previous };
    });
  }

  /**
   * Remove an object (`object` is its last state, computed from `expected`, the live one); the
   * DELETED event carries it with a fresh resourceVersion. Persisted first, like put.
   */
  remove(resource: string, object: KubeObject, expected: KubeObject): Promise<KubeObject> {
    const namespace = object.metadata.namespace ?? '';
    const name = object.metadata.name!;
    this.claim(resource, namespace, name, expected);
    const rv = ++this._rv;
    const gone: KubeObject = { ...object, metadata: { ...object.metadata, resourceVersion: String(rv) } };
    return this.commit(resource, namespace, name, rv, null, () => {
      this.objects.get(resource)?.delete(objectKey(namespace, name));
      this.indexOwners(resource, undefined, expected);
      return { type: 'DELETED', resource, namespace, rv, object: gone };
    });
  }

  /** The compare of a compare-and-swap: the key is as the writer read it and no write to it is in flight. */
  private claim(resource: string, namespace: string, name: string, expected: KubeObject | undefined): void {
    const inFlight = this.inFlight.get(writeKey(resource, namespace, name));
    if (inFlight) throw new WriteRace(inFlight);
    if (this.get(resource, namespace, name) !== expected) throw new WriteRace(Promise.resolve());
  }

  /**
   * Persists one write, then applies it. The apply runs in the commit's own continuation, so
   * writes become visible in the order of their resourceVersions (the persistence commits and
   * resolves them in the order they were queued, which is the order rv was taken in).
   */
  private commit(
    resource: string,
    namespace: string,
    name: string,
    rv: number,
    body: KubeObject | null,
    apply: () => StoreEvent,
  ): Promise<KubeObject> {
    const key = writeKey(resource, namespace, name);
    const written = this.persistence.write(resource, namespace, name, rv, body).then(
      () => {
        this.inFlight.delete(key);
        const event = apply();
        if (rv > this._committedRv) this._committedRv = rv;
        this.emit(event);
        return event.object;
      },
      (error: unknown) => {
        this.inFlight.delete(key);
        throw error;
      },
    );
    this.inFlight.set(
      key,
      written.then(
        () => undefined,
        () => undefined,
      ),
    );
    return written;
  }

  /** Events after `rv` for a resource, or undefined when the log no longer reaches back that far. */
  eventsSince(rv: number, resource: string, namespace: string | undefined): StoreEvent[] | undefined {
    if (rv < this.oldestWatchableRv) return undefined;
    const out: StoreEvent[] = [];
    // Binary search the first event after rv; the log is ordered by rv.
    let lo = this.logStart;
    let hi = this.log.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.log[mid]!.rv <= rv) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.log.length; i++) {
      const e = this.log[i]!;
      if (e.resource === resource && (namespace === undefined || e.namespace === namespace)) out.push(e);
    }
    return out;
  }

  subscribe(listener: WatchListener): () => void {
    let set = this.listeners.get(listener.resource);
    if (!set) this.listeners.set(listener.resource, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  watcherCount(): number {
    let n = 0;
    for (const s of this.listeners.values()) n += s.size;
    return n;
  }

  private emit(event: StoreEvent): void {
    const now = this.now();
    this.log.push(event);
    this.logTimes.push(now);
    while (
      this.logStart < this.log.length &&
      (this.log.length - this.logStart > this.logCapacity ||
        this.logTimes[this.logStart]! < now - this.historyMs)
    ) {
      this.log[this.logStart] = undefined as unknown as StoreEvent; // its objects can go now
      this.logStart++;
    }
    // Drop the forgotten slots once they are half of the array (amortized O(1) per event).
    if (this.logStart > 1024 && this.logStart * 2 > this.log.length) {
      this.log = this.log.slice(this.logStart);
      this.logTimes = this.logTimes.slice(this.logStart);
      this.logStart = 0;
    }
    const set = this.listeners.get(event.resource);
    if (!set) return;
    for (const l of set) {
      if (l.namespace !== undefined && l.namespace !== event.namespace) continue;
      try {
        l.onEvent(event);
      } catch {
        // A broken watcher must not stop the write path; its connection cleans itself up.
      }
    }
  }

  private bucket(resource: string): Map<string, KubeObject> {
    let b = this.objects.get(resource);
    if (!b) this.objects.set(resource, (b = new Map()));
    return b;
  }

  private indexOwners(
    resource: string,
    next: KubeObject | undefined,
    previous: KubeObject | undefined,
  ): void {
    const ref = (o: KubeObject) => `${resource}|${o.metadata.namespace ?? ''}|${o.metadata.name}`;
    if (previous?.metadata.uid) this.uids.delete(previous.metadata.uid);
    if (next?.metadata.uid) this.uids.set(next.metadata.uid, ref(next));
    for (const o of previous?.metadata.ownerReferences ?? []) this.owners.get(o.uid)?.delete(ref(previous!));
    for (const o of next?.metadata.ownerReferences ?? []) {
      let s = this.owners.get(o.uid);
      if (!s) this.owners.set(o.uid, (s = new Set()));
      s.add(ref(next!));
    }
  }
}
