import { randomUUID } from 'node:crypto';
import {
  LABELS,
  isAlreadyExists,
  isConflict,
  isNotFound,
  keyOf,
  sameJson,
  startInformer,
  type EventType,
  type Informer,
  type Kube,
} from '@sandflow/kube';
import type { Logger } from 'pino';
import { conflict, notFound, unavailable } from '../errors.js';
import type { KubeObject, ResourceKind } from './types.js';

/** Marks the API's own writes, so the watch does not record them a second time. */
export const CHANGE_ANNOTATION = 'sandflow.io/change';

/** Only the Sandflow namespaces (`sf-<org>`, `sf-<org>-<group>`) hold the product's objects. */
export const isSandflowNamespace = (namespace: string | undefined) => !!namespace?.startsWith('sf-');

/** A change the watch saw, after the cache took it in. */
export interface Change<O extends KubeObject> {
  type: EventType;
  object: O;
  /** The audit action (create, remove, rename, variables, update…). */
  action: string;
  /** The API's own write: its actor (already recorded by the API); null for anyone else's. */
  actorId: string | null;
}

export interface ResourceStore<O extends KubeObject> {
  readonly kind: ResourceKind<O>;
  /** Settles once the cache holds a full list. */
  readonly synced: Promise<void>;
  /** The objects of a namespace; without one, of every namespace. */
  list(namespace?: string): O[];
  get(namespace: string, name: string): O | undefined;
  /** Objects by label: organization, group or owner. */
  byIndex(index: 'organization' | 'group' | 'owner', value: string): O[];
  /** Grows with every change the cache takes in: what was derived from a list at one count still holds. */
  changes(): number;
  /** Creates the object; 409 naming it when the name is taken. */
  create(object: O, actorId: string): Promise<O>;
  /**
   * Replaces the object as of `object.metadata.resourceVersion`: when anyone wrote it since,
   * nothing is written and the answer is a 409 naming the object (never a lost update).
   */
  replace(object: O, actorId: string): Promise<O>;
  remove(object: O, actorId: string): Promise<void>;
  stop(): Promise<void>;
}

const PENDING_TTL_MS = 5 * 60_000;
/** How long a write waits for the watch to bring it into the cache (reads are served from it). */
const CATCH_UP_MS = 5_000;

/**
 * The informer-backed cache of one kind across the Sandflow namespaces, with writes through the
 * Kubernetes API (optimistic concurrency) and a change feed of everything the watch sees.
 * A write returns once the cache holds it, so a read that follows sees it.
 */
export function createResourceStore<O extends KubeObject>(
  kube: Kube,
  kind: ResourceKind<O>,
  options: {
    logger: Logger;
    onChange(change: Change<O>): void;
    /** Every event after the first list, status-only updates too (run phases are status). */
    onEvent?(type: EventType, object: O): void;
  },
): ResourceStore<O> {
  const { logger } = options;
  /** change id → actor, for the API's writes whose watch event has not come yet. */
  const pending = new Map<string, { actorId: string; at: number }>();
  /** namespace/name of the objects the API is deleting → actor. */
  const deleting = new Map<string, { actorId: string; at: number }>();
  const specs = new Map<string, unknown>();
  const waiters = new Map<string, Set<{ rv: string | null; done(): void }>>();
  let synced = false;
  let changeCount = 0;

  const informer: Informer<O> = startInformer<O>(kube, kind.kind, {
    log: logger,
    labelIndexes: { organization: LABELS.organization, group: LABELS.group, owner: LABELS.owner },
    on: (type, object) => {
      try {
        observe(type, object);
      } catch (error) {
        logger.error({ err: error, kind: kind.title }, 'resource change handling failed');
      }
    },
  });
  informer.synced.then(
    () => (synced = true),
    () => undefined,
  );

  function observe(type: EventType, object: O) {
    changeCount++;
    const key = keyOf(object);
    settle(key, type === 'delete' ? null : (object.metadata.resourceVersion ?? ''));
    if (!isSandflowNamespace(object.metadata.namespace)) return;
    const before = specs.get(key);
    if (type === 'delete') specs.delete(key);
    else specs.set(key, object.spec);
    // The first list is the state at start, not a change; status-only updates are the operator's.
    if (!synced) return;
    options.onEvent?.(type, object);
    if (type === 'update' && before !== undefined && sameJson(before, object.spec)) return;
    const action =
      type === 'add'
        ? 'create'
        : type === 'delete'
          ? 'remove'
          : kind.changeAction(before as O['spec'] | undefined, object.spec);
    let own: { actorId: string } | undefined;
    if (type === 'delete') {
      own = deleting.get(key);
      deleting.delete(key);
    } else {
      const id = object.metadata.annotations?.[CHANGE_ANNOTATION];
      own = id ? pending.get(id) : undefined;
      if (id) pending.delete(id);
    }
    options.onChange({ type, object, action, actorId: own?.actorId ?? null });
  }

  function settle(key: string, rv: string | null) {
    const set = waiters.get(key);
    if (!set) return;
    for (const w of set) if (w.rv === rv) w.done();
  }

  /** Resolves once the cache holds `rv` of the object (null: once it is gone), or after CATCH_UP_MS. */
  function caughtUp(key: string, rv: string | null): Promise<void> {
    const [namespace, name] = [key.slice(0, key.indexOf('/')), key.slice(key.indexOf('/') + 1)];
    const current = informer.get(name, namespace);
    if ((current?.metadata.resourceVersion ?? null) === rv) return Promise.resolve();
    return new Promise((resolve) => {
      let set = waiters.get(key);
      if (!set) waiters.set(key, (set = new Set()));
      const waiter = {
        rv,
        done: () => {
          clearTimeout(timer);
          set.delete(waiter);
          if (set.size === 0) waiters.delete(key);
          resolve();
        },
      };
      const timer = setTimeout(waiter.done, CATCH_UP_MS);
      set.add(waiter);
    });
  }

  function remember(map: Map<string, { actorId: string; at: number }>, id: string, actorId: string) {
    const now = Date.now();
    for (const [k, v] of map) if (now - v.at > PENDING_TTL_MS) map.delete(k);
    map.set(id, { actorId, at: now });
  }

  /** A change id on the object, known to the watch before the write can reach it. */
  function marked(object: O, actorId: string): O {
    const id = randomUUID();
    remember(pending, id, actorId);
    return {
      ...object,
      metadata: {
        ...object.metadata,
        annotations: { ...object.metadata.annotations, [CHANGE_ANNOTATION]: id },
      },
    };
  }

  const named = (object: O) => `${kind.title} ${kind.displayName(object)} (${object.metadata.name})`;

  function failure(error: unknown, object: O): never {
    if (isConflict(error))
      throw conflict(`${named(object)} was changed by someone else since it was read; reload it and retry.`);
    if (isAlreadyExists(error)) throw conflict(`${named(object)} already exists.`);
    if (isNotFound(error)) throw notFound(kind.title);
    throw unavailable(
      'kubernetes_unavailable',
      `The Kubernetes API did not accept the change of ${named(object)}, please retry.`,
      error,
    );
  }

  const ns = (object: O) => object.metadata.namespace!;

  return {
    kind,
    synced: informer.synced,
    list: (namespace) => informer.list(namespace),
    get: (namespace, name) => informer.get(name, namespace),
    byIndex: (index, value) => informer.byIndex(index, value),
    changes: () => changeCount,

    async create(object, actorId) {
      let created: O;
      try {
        created = await kube.create<O>(kind.kind, ns(object), marked(object, actorId));
      } catch (error) {
        failure(error, object);
      }
      await caughtUp(keyOf(created), created.metadata.resourceVersion ?? null);
      return created;
    },

    async replace(object, actorId) {
      let replaced: O;
      try {
        replaced = await kube.replace<O>(
          kind.kind,
          ns(object),
          object.metadata.name!,
          marked(object, actorId),
        );
      } catch (error) {
        failure(error, object);
      }
      await caughtUp(keyOf(replaced), replaced.metadata.resourceVersion ?? null);
      return replaced;
    },

    async remove(object, actorId) {
      const key = keyOf(object);
      remember(deleting, key, actorId);
      try {
        await kube.delete(kind.kind, ns(object), object.metadata.name!);
      } catch (error) {
        deleting.delete(key);
        failure(error, object);
      }
      await caughtUp(key, null);
    },

    stop: () => informer.stop(),
  };
}
