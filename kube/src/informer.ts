// A typed informer over one kind: client-node's list+watch cache, with indexes kept beside it, a
// `synced` promise that settles once a list has succeeded, and restarts after list/watch errors
// (client-node's informer goes quiet after an error; its start() even resolves when the list failed).
import { makeInformer, type KubernetesObject } from '@kubernetes/client-node';
import type { Kube } from './client.js';
import { keyOf, kindPath, type Kind } from './names.js';

export type EventType = 'add' | 'update' | 'delete';

export interface Cache<T> {
  list(namespace?: string): T[];
  get(name: string, namespace?: string): T | undefined;
  /** The objects whose index `index` has `value` (an index named in the informer's options). */
  byIndex(index: string, value: string): T[];
}

export interface Informer<T> extends Cache<T> {
  /** Settles once the cache holds a full list (after retries when the first list fails). */
  readonly synced: Promise<void>;
  stop(): Promise<void>;
}

export interface InformerOptions<T> {
  log: { warn(obj: object, msg: string): void };
  /** Indexes by the value of a label: index name → label key. */
  labelIndexes?: Record<string, string>;
  /** Other indexes: index name → the value(s) of an object. */
  indexes?: Record<string, (o: T) => string | undefined>;
  /** Called after the cache (and its indexes) took the change in. */
  on?: (type: EventType, obj: T) => void;
  restartDelayMs?: number;
}

/** What the informer needs of an object: its metadata (library and generated types differ in the rest). */
export interface Meta {
  metadata?: { name?: string; namespace?: string; labels?: Record<string, string> };
}

export function startInformer<T extends Meta>(kube: Kube, kind: Kind, opts: InformerOptions<T>): Informer<T> {
  const path = kindPath(kind);
  let listed = false;
  const informer = makeInformer<KubernetesObject>(kube.kc, path, async () => {
    const list = await kube.list<KubernetesObject>(kind);
    listed = true;
    return list as never;
  });

  const valueOf: Record<string, (o: T) => string | undefined> = { ...opts.indexes };
  for (const [name, label] of Object.entries(opts.labelIndexes ?? {}))
    valueOf[name] = (o) => o.metadata?.labels?.[label];
  const indexes = new Map<string, Map<string, Map<string, T>>>(
    Object.keys(valueOf).map((n) => [n, new Map()]),
  );
  const indexed = new Map<string, Record<string, string | undefined>>();
  const unindex = (key: string) => {
    const before = indexed.get(key);
    if (!before) return;
    for (const [name, value] of Object.entries(before)) {
      if (value === undefined) continue;
      const bucket = indexes.get(name)!.get(value);
      bucket?.delete(key);
      if (bucket?.size === 0) indexes.get(name)!.delete(value);
    }
    indexed.delete(key);
  };
  const index = (o: T) => {
    const key = keyOf(o);
    unindex(key);
    const values: Record<string, string | undefined> = {};
    for (const [name, fn] of Object.entries(valueOf)) {
      const value = (values[name] = fn(o));
      if (value === undefined) continue;
      const byValue = indexes.get(name)!;
      if (!byValue.has(value)) byValue.set(value, new Map());
      byValue.get(value)!.set(key, o);
    }
    indexed.set(key, values);
  };
  for (const verb of ['add', 'update', 'delete'] as const)
    informer.on(verb, (o) => {
      if (verb === 'delete') unindex(keyOf(o));
      else index(o as T);
      opts.on?.(verb, o as T);
    });

  let stopped = false;
  let pending: NodeJS.Timeout | undefined;
  let markSynced!: () => void;
  const synced = new Promise<void>((resolve) => (markSynced = resolve));
  const start = () => {
    listed = false;
    informer.start().then(
      () => {
        if (listed) markSynced();
      },
      (err: unknown) => restart(err),
    );
  };
  const restart = (err: unknown) => {
    if (stopped || pending) return;
    opts.log.warn({ err, path }, 'watch failed; restarting');
    pending = setTimeout(() => {
      pending = undefined;
      if (!stopped) start();
    }, opts.restartDelayMs ?? 500);
    pending.unref();
  };
  informer.on('error', restart);
  start();

  return {
    synced,
    list: (namespace) => informer.list(namespace) as T[],
    get: (name, namespace) => informer.get(name, namespace) as T | undefined,
    byIndex: (name, value) => {
      const byValue = indexes.get(name);
      if (!byValue) throw new Error(`no index ${name} on ${path}`);
      return [...(byValue.get(value)?.values() ?? [])];
    },
    async stop() {
      stopped = true;
      if (pending) clearTimeout(pending);
      await informer.stop();
    },
  };
}
