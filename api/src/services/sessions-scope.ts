import type { Session } from '@sandflow/crds';
import type { Knex } from 'knex';
import { sameJson } from '@sandflow/kube';
import { DomainError, forbidden, notFound, unavailable } from '../errors.js';
import {
  CHANGE_ANNOTATION,
  accessOf,
  viewerOf,
  type KubeObject,
  type Need,
  type ResourceStore,
  type Resources,
  type RunObject,
} from '../resources/index.js';
import type { Caller } from './callers.js';
import { NOTIFIED_ANNOTATION } from './runs-events.js';

const SYNC_WAIT_MS = 10_000;

/** The resource layer once its caches hold a full list (503 when there is none, or it takes too long). */
export async function syncedLayer(resources: Resources | null): Promise<Resources> {
  if (!resources)
    throw unavailable('kubernetes_unavailable', 'Sessions need a Kubernetes API, and none is configured.');
  if (resources.isSynced()) return resources;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), SYNC_WAIT_MS)));
  const outcome = await Promise.race([resources.synced, late]);
  clearTimeout(timer);
  if (outcome === 'late')
    throw unavailable('resources_not_synced', 'The session cache is still loading, please retry.');
  return resources;
}

/**
 * Where sessions and runs of the caller's current organization are: the group namespaces
 * (`sf-<org>-<group>`) of its groups, by group id.
 */
export async function organizationScope(db: Knex, resources: Resources, caller: Caller) {
  const organizationId = caller.currentOrganizationId;
  const namespace = organizationId ? await resources.namespaceOf(organizationId) : null;
  if (!organizationId || !namespace) return null;
  const groups: { id: string; slug: string; name: string }[] = await db('groups')
    .where({ organization_id: organizationId })
    .select('id', 'slug', 'name');
  const byNamespace = new Map(groups.map((g) => [`${namespace}-${g.slug}`, g]));
  return { resources, organizationId, namespace, groups, byNamespace };
}
export type OrganizationScope = NonNullable<Awaited<ReturnType<typeof organizationScope>>>;

/** The sessions of the organization's group namespaces. */
export function sessionsIn(scope: OrganizationScope): Session[] {
  return [...scope.byNamespace.keys()].flatMap((ns) => scope.resources.sessions.list(ns));
}

/** A session of the caller's organization they may `need`: anything else is a 404 (a 403 when seen but not allowed). */
export async function reachSession(
  db: Knex,
  resources: Resources | null,
  caller: Caller,
  id: string,
  need: Need,
) {
  const layer = await syncedLayer(resources);
  const scope = await organizationScope(db, layer, caller);
  const object = scope && sessionsIn(scope).find((s) => s.metadata.name === id);
  if (!scope || !object) throw notFound('Session');
  const subject = layer.sessions.kind.access(object);
  const viewer = await viewerOf(db, caller, scope.organizationId, [subject.owner]);
  const access = accessOf(viewer, subject);
  if (!access.view) throw notFound('Session');
  if (!access[need]) throw forbidden(`Session ${object.spec.name}: not allowed`);
  return { ...scope, object, viewer, access };
}

/** When the API created a run, to the millisecond (creationTimestamp has whole seconds). */
export const CREATED_ANNOTATION = 'sandflow.io/created-at';

const createdAt = (r: RunObject) =>
  Date.parse(r.metadata.annotations?.[CREATED_ANNOTATION] ?? r.metadata.creationTimestamp ?? '') || 0;

/** Oldest first: the API's runs by their millisecond, others by their creation second, then by name. */
export const byCreation = (a: RunObject, b: RunObject) =>
  createdAt(a) - createdAt(b) || a.metadata.name!.localeCompare(b.metadata.name!);

/** The runs of a session, oldest first. */
export function runsOf(resources: Resources, session: Session): RunObject[] {
  return resources.runs
    .list(session.metadata.namespace!)
    .filter((r) => r.spec.session === session.metadata.name)
    .sort(byCreation);
}

const meta = (o: KubeObject) => {
  const annotations = { ...o.metadata.annotations };
  // The API's own bookkeeping, not what anyone asked of the object.
  delete annotations[CHANGE_ANNOTATION];
  delete annotations[NOTIFIED_ANNOTATION];
  return { labels: o.metadata.labels ?? {}, annotations, spec: o.spec };
};

/**
 * Replaces `base` with `next(current)`. The operator writes the status of sessions and runs all the
 * time, and each write moves the resourceVersion a save was read at: a 409 whose cause is only
 * such a status write is retried from the cache's newer copy (`check` may refuse it, e.g. a run
 * that reached a phase the action is not allowed from); a change of the spec, labels or annotations
 * since `base` stays a 409 (never a lost update).
 */
export async function replaceOverStatus<O extends KubeObject>(
  store: ResourceStore<O>,
  base: O,
  next: (current: O) => O,
  actorId: string,
  check: (current: O) => void = () => undefined,
): Promise<O> {
  let current = base;
  for (let attempt = 1; ; attempt++) {
    try {
      return await store.replace(next(current), actorId);
    } catch (error) {
      if (!(error instanceof DomainError && error.kind === 'conflict') || attempt >= 5) throw error;
      let fresh: O | undefined;
      for (let wait = 0; wait < 20; wait++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        fresh = store.get(base.metadata.namespace!, base.metadata.name!);
        if (fresh?.metadata.resourceVersion !== current.metadata.resourceVersion) break;
      }
      if (!fresh || fresh.metadata.resourceVersion === current.metadata.resourceVersion) throw error;
      if (!sameJson(meta(fresh), meta(base))) throw error;
      check(fresh);
      current = fresh;
    }
  }
}
