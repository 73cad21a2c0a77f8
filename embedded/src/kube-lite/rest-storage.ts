import type { Logger } from 'pino';
import {
  admitCreate,
  admitUpdate,
  apiVersionOf,
  ensureNotTerminating,
  schemaFor,
  type WriteContext,
} from './admission.js';
import { establishedStatus } from './crd.js';
import { StatusError, alreadyExists, badRequest, conflict, gone, notFound } from './errors.js';
import {
  ApplyConflictError,
  CORE_PATCH_META,
  PatchError,
  applyJsonPatch,
  applyMergePatch,
  applyStrategicMergePatch,
  serverSideApply,
} from './patch/index.js';
import { type ResourceInfo, type ResourceRegistry, resourceFromCrd, resourceKey } from './registry.js';
import { type FieldSelector, type LabelSelector } from './selectors.js';
import { type ObjectStore, WriteRace } from './store.js';
import type { KubeObject } from './types.js';
import { clone, isPlainObject, nowIso } from './util.js';

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

export interface ListOptions {
  labelSelector?: LabelSelector | undefined;
  fieldSelector?: FieldSelector | undefined;
  limit?: number | undefined;
  continueToken?: string | undefined;
}

export interface DeleteOptions {
  propagationPolicy?: 'Background' | 'Foreground' | 'Orphan' | undefined;
  preconditions?: { uid?: string; resourceVersion?: string } | undefined;
  dryRun?: boolean;
}

const CRD_KEY = 'apiextensions.k8s.io/customresourcedefinitions';
/** How many times a write is computed again after another write to its object went first. */
const MAX_WRITE_RETRIES = 100;
const NS_KEY = '/namespaces';

export const matches = (o: KubeObject, opts: Pick<ListOptions, 'labelSelector' | 'fieldSelector'>) =>
  (!opts.labelSelector || opts.labelSelector(o.metadata.labels)) &&
  (!opts.fieldSelector || opts.fieldSelector(o as unknown as Record<string, unknown>));

/**
 * The semantics of kube-apiserver's generic registry over the object store: create,
 * update, patch, delete with finalizers, garbage collection of dependents, namespace
 * termination and CRD lifecycle.
 */
export class RestStorage {
  constructor(
    private readonly store: ObjectStore,
    private readonly registry: ResourceRegistry,
    private readonly log: Logger,
  ) {}

  /** Registers every stored CRD; called once after loading. */
  registerStoredCrds(): void {
    for (const crd of this.store.list(CRD_KEY)) {
      if (!crd.metadata.deletionTimestamp) this.registry.add(resourceFromCrd(crd));
    }
    for (const ns of this.store.list(NS_KEY))
      if (ns.metadata.deletionTimestamp) this.finalizeNamespace(ns.metadata.name!);
  }

  /** The object as served at `version` (objects are stored once, at the storage version). */
  view(r: ResourceInfo, version: string, o: KubeObject): KubeObject {
    const apiVersion = apiVersionOf(r, version);
    return o.apiVersion === apiVersion ? o : { ...o, apiVersion };
  }

  get(r: ResourceInfo, namespace: string, name: string): KubeObject {
    const o = this.store.get(resourceKey(r), namespace, name);
    if (!o) throw notFound(r.plural, r.group, name);
    return o;
  }

  list(r: ResourceInfo, namespace: string | undefined, opts: ListOptions) {
    let items = this.store.list(resourceKey(r), namespace).filter((o) => matches(o, opts));
    const resourceVersion = String(this.store.resourceVersion);
    if (opts.continueToken) {
      const after = decodeContinue(opts.continueToken, this.store.oldestWatchableRv);
      const at = items.findIndex((o) => `${o.metadata.namespace ?? ''}/${o.metadata.name}` > after);
      items = at < 0 ? [] : items.slice(at);
    }
    let continueToken: string | undefined;
    let remainingItemCount: number | undefined;
    if (opts.limit && opts.limit > 0 && items.length > opts.limit) {
      const last = items[opts.limit - 1]!;
      continueToken = encodeContinue(
        `${last.metadata.namespace ?? ''}/${last.metadata.name}`,
        this.store.resourceVersion,
      );
      remainingItemCount = opts.labelSelector || opts.fieldSelector ? undefined : items.length - opts.limit;
      items = items.slice(0, opts.limit);
    }
    return { items, resourceVersion, continueToken, remainingItemCount };
  }

  create(
    r: ResourceInfo,
    version: string,
    namespace: string,
    body: unknown,
    ctx: WriteContext,
  ): Promise<KubeObject> {
    return this.retrying(r, () => this.createOnce(r, version, namespace, body, ctx));
  }

  /**
   * Every write reads its object, checks and computes the next one and hands it to the store in
   * one synchronous step, so the check and the commit cannot interleave with another write (the
   * store refuses a write whose object changed or has a write in flight; it is then computed again).
   */
  private async createOnce(
    r: ResourceInfo,
    version: string,
    namespace: string,
    body: unknown,
    ctx: WriteContext,
  ): Promise<KubeObject> {
    if (r.namespaced) this.requireNamespace(namespace);
    const obj = admitCreate(r, version, namespace, body, ctx);
    if (this.store.get(resourceKey(r), obj.metadata.namespace ?? '', obj.metadata.name!))
      throw alreadyExists(r.plural, r.group, obj.metadata.name!);
    if (r.kind === 'CustomResourceDefinition' && !r.custom) this.checkCrdNames(obj);
    if (ctx.dryRun) return obj;
    return this.commit(r, obj, undefined);
  }

  update(
    r: ResourceInfo,
    version: string,
    namespace: string,
    name: string,
    body: unknown,
    ctx: WriteContext,
    subresource?: 'status',
  ): Promise<KubeObject> {
    return this.retrying(r, async () => {
      const old = this.get(r, namespace, name);
      const next = admitUpdate(r, version, old, body, ctx, subresource);
      if (!next) return old;
      if (ctx.dryRun) return next;
      return this.commit(r, next, old);
    });
  }

  patch(
    r: ResourceInfo,
    version: string,
    namespace: string,
    name: string,
    type: PatchType,
    patch: unknown,
    ctx: WriteContext & { force: boolean },
    subresource?: 'status',
  ): Promise<KubeObject> {
    return this.retrying(r, () => this.patchOnce(r, version, namespace, name, type, patch, ctx, subresource));
  }

  private async patchOnce(
    r: ResourceInfo,
    version: string,
    namespace: string,
    name: string,
    type: PatchType,
    patch: unknown,
    ctx: WriteContext & { force: boolean },
    subresource?: 'status',
  ): Promise<KubeObject> {
    const live = this.store.get(resourceKey(r), namespace, name);
    if (!live && type !== 'apply') throw notFound(r.plural, r.group, name);
    if (type === 'strategic' && r.custom)
      throw new StatusError(
        415,
        'UnsupportedMediaType',
        'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
      );
    const current = live ? clone(this.view(r, version, live)) : undefined;
    let patched: unknown;
    try {
      switch (type) {
        case 'json':
          if (!Array.isArray(patch)) throw badRequest('json patch must be an array of operations');
          patched = applyJsonPatch(current, patch);
          break;
        case 'merge':
          patched = applyMergePatch(current, patch);
          break;
        case 'strategic':
          patched = applyStrategicMergePatch(current, patch, CORE_PATCH_META[r.kind] ?? {});
          break;
        case 'apply': {
          if (!isPlainObject(patch)) throw badRequest('the apply configuration must be an object');
          const applied = patch as KubeObject;
          if (applied.metadata?.name && applied.metadata.name !== name)
            throw badRequest(
              `the name of the object (${applied.metadata.name}) does not match the name on the URL (${name})`,
            );
          patched = serverSideApply({
            live: current,
            applied,
            manager: ctx.manager,
            force: ctx.force,
            schema: schemaFor(r, version),
            now: nowIso(),
            ...(subresource ? { subresource } : {}),
          }).object;
          if (!live) {
            const obj = patched as KubeObject;
            obj.metadata = { ...obj.metadata, name };
            return this.createOnce(r, version, namespace, obj, ctx);
          }
          break;
        }
      }
    } catch (e) {
      if (e instanceof ApplyConflictError)
        throw new StatusError(409, 'Conflict', e.message, {
          name,
          group: r.group,
          kind: r.plural,
          causes: e.conflicts.map((c) => ({
            reason: 'FieldManagerConflict',
            message: `conflict with "${c.manager}"`,
            field: c.field,
          })),
        });
      if (e instanceof PatchError) throw new StatusError(e.code, e.reason, e.message);
      throw e;
    }
    const next = admitUpdate(r, version, live!, patched, ctx, subresource);
    if (!next) return live!;
    if (ctx.dryRun) return next;
    return this.commit(r, next, live);
  }

  delete(r: ResourceInfo, namespace: string, name: string, opts: DeleteOptions): Promise<KubeObject> {
    return this.retrying(r, () => this.deleteOnce(r, namespace, name, opts));
  }

  private async deleteOnce(
    r: ResourceInfo,
    namespace: string,
    name: string,
    opts: DeleteOptions,
  ): Promise<KubeObject> {
    const read = () => {
      const live = this.get(r, namespace, name);
      const pre = opts.preconditions;
      if (pre?.uid && pre.uid !== live.metadata.uid)
        throw conflict(
          r.plural,
          r.group,
          name,
          `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${live.metadata.uid}`,
        );
      if (pre?.resourceVersion && pre.resourceVersion !== live.metadata.resourceVersion)
        throw conflict(
          r.plural,
          r.group,
          name,
          `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${live.metadata.resourceVersion}`,
        );
      return live;
    };
    let obj = read();
    if (opts.dryRun) return obj;
    const policy = opts.propagationPolicy ?? 'Background';
    if (policy === 'Orphan' && this.store.dependentsOf(obj.metadata.uid!).length > 0) {
      await this.orphanDependents(obj);
      // The object may have changed while its dependents were written: read and check it again.
      obj = read();
    }
    const finalizers = [...(obj.metadata.finalizers ?? [])];
    if (
      policy === 'Foreground' &&
      this.store.dependentsOf(obj.metadata.uid!).length > 0 &&
      !finalizers.includes('foregroundDeletion')
    )
      finalizers.push('foregroundDeletion');
    const isNamespace = r.kind === 'Namespace' && !r.custom;
    if (finalizers.length === 0 && !isNamespace) return this.removeNow(r, obj, obj);
    if (obj.metadata.deletionTimestamp && finalizers.length === (obj.metadata.finalizers ?? []).length)
      return obj;
    const marked: KubeObject = {
      ...obj,
      metadata: {
        ...obj.metadata,
        finalizers,
        deletionTimestamp: obj.metadata.deletionTimestamp ?? nowIso(),
        deletionGracePeriodSeconds: 0,
      },
    };
    if (finalizers.length === 0) delete marked.metadata.finalizers;
    if (isNamespace) marked.status = { ...(obj.status as object), phase: 'Terminating' };
    const stored = await this.commit(r, marked, obj);
    if (isNamespace) this.finalizeNamespace(name);
    if (finalizers.includes('foregroundDeletion')) this.deleteDependents(obj, 'Foreground');
    return stored;
  }

  async deleteCollection(
    r: ResourceInfo,
    namespace: string | undefined,
    list: ListOptions,
    opts: DeleteOptions,
  ) {
    const items = this.store.list(resourceKey(r), namespace).filter((o) => matches(o, list));
    const deleted: KubeObject[] = [];
    for (const o of items) {
      try {
        deleted.push(await this.delete(r, o.metadata.namespace ?? '', o.metadata.name!, opts));
      } catch (e) {
        if (!(e instanceof StatusError && e.code === 404)) throw e;
      }
    }
    return deleted;
  }

  private requireNamespace(namespace: string): void {
    if (!namespace) throw badRequest('a namespace is required for a namespaced resource');
    const ns = this.store.get(NS_KEY, '', namespace);
    if (!ns) throw notFound('namespaces', '', namespace);
    ensureNotTerminating(ns, namespace);
  }

  private checkCrdNames(crd: KubeObject): void {
    const incoming = resourceFromCrd(crd);
    const clash = this.registry
      .all()
      .find((r) => r.group === incoming.group && r.kind === incoming.kind && r.plural !== incoming.plural);
    if (clash)
      throw conflict(
        'customresourcedefinitions',
        'apiextensions.k8s.io',
        crd.metadata.name!,
        `kind ${incoming.kind} is already served as ${clash.plural}`,
      );
  }

  /**
   * Runs a write, and again (reading its object afresh) while another write to the object goes
   * first; a write that keeps losing answers Conflict, as kube-apiserver does.
   */
  private async retrying<T>(r: ResourceInfo, attempt: () => Promise<T>): Promise<T> {
    for (let i = 0; ; i++) {
      try {
        return await attempt();
      } catch (e) {
        if (!(e instanceof WriteRace)) throw e;
        if (i >= MAX_WRITE_RETRIES)
          throw new StatusError(
            409,
            'Conflict',
            `Operation cannot be fulfilled on ${r.plural}: the object has been modified; please apply your changes to the latest version and try again`,
          );
        await e.settled;
      }
    }
  }

  /**
   * Writes an object computed from `expected` (the live object, undefined for a create); removes
   * it instead when its deletion has no finalizers left. Resolves once committed.
   */
  private async commit(
    r: ResourceInfo,
    obj: KubeObject,
    expected: KubeObject | undefined,
  ): Promise<KubeObject> {
    if (
      expected &&
      obj.metadata.deletionTimestamp &&
      (obj.metadata.finalizers ?? []).length === 0 &&
      !(r.kind === 'Namespace' && !r.custom)
    ) {
      return this.removeNow(r, obj, expected);
    }
    if (r.kind === 'CustomResourceDefinition' && !r.custom && !obj.metadata.deletionTimestamp) {
      obj = {
        ...obj,
        status: {
          ...establishedStatus(obj),
          ...(isPlainObject(obj.status) && obj.status.storedVersions ? {} : {}),
        },
      };
    }
    const stored = await this.store.put(resourceKey(r), obj, expected);
    if (r.kind === 'CustomResourceDefinition' && !r.custom) this.onCrdChanged(stored);
    return stored;
  }

  /** Removes `expected` (the live object), its DELETED event carrying `obj`; resolves once committed. */
  private async removeNow(r: ResourceInfo, obj: KubeObject, expected: KubeObject): Promise<KubeObject> {
    const gone = await this.store.remove(resourceKey(r), obj, expected);
    if (r.kind === 'CustomResourceDefinition' && !r.custom) this.onCrdRemoved(obj);
    this.collectAfterRemoval(obj);
    return gone;
  }

  /**
   * Reads an object and writes what `change` makes of it (nothing when it returns undefined or the
   * object is gone), again whenever another write to it went first.
   */
  private rewrite(
    r: ResourceInfo,
    namespace: string,
    name: string,
    change: (live: KubeObject) => KubeObject | undefined,
  ): Promise<KubeObject | undefined> {
    return this.retrying(r, async () => {
      const live = this.store.get(resourceKey(r), namespace, name);
      const next = live && change(live);
      return next ? this.commit(r, next, live) : live;
    });
  }

  /** Removes an object if it is still there, again whenever another write to it went first. */
  private removeLatest(r: ResourceInfo, namespace: string, name: string): Promise<KubeObject | undefined> {
    return this.retrying(r, async () => {
      const live = this.store.get(resourceKey(r), namespace, name);
      return live ? this.removeNow(r, live, live) : undefined;
    });
  }

  private onCrdChanged(crd: KubeObject): void {
    if (crd.metadata.deletionTimestamp) {
      this.finalizeCrd(crd);
      return;
    }
    this.registry.add(resourceFromCrd(crd));
  }

  private onCrdRemoved(crd: KubeObject): void {
    const spec = crd.spec as { group: string; names: { plural: string } };
    const key = resourceKey({ group: spec.group, plural: spec.names.plural });
    const r = this.registry.byGroupKey(key);
    if (r)
      for (const o of this.store.list(key))
        this.removeLatest(r, o.metadata.namespace ?? '', o.metadata.name!).catch((e) =>
          this.log.error({ err: e }, 'remove custom resource'),
        );
    this.registry.remove(spec.group, spec.names.plural);
  }

  /** A CRD being deleted takes its objects with it, then drops its own finalizer. */
  private finalizeCrd(crd: KubeObject): void {
    this.onCrdRemoved(crd);
    const cleanup = 'customresourcecleanup.apiextensions.k8s.io';
    if (crd.metadata.finalizers?.includes(cleanup)) {
      const r = this.registry.byGroupKey(CRD_KEY)!;
      setImmediate(() => {
        this.rewrite(r, '', crd.metadata.name!, (current) =>
          current.metadata.finalizers?.includes(cleanup)
            ? {
                ...current,
                metadata: {
                  ...current.metadata,
                  finalizers: current.metadata.finalizers.filter((f) => f !== cleanup),
                },
              }
            : undefined,
        ).catch((e) => this.log.error({ err: e, crd: crd.metadata.name }, 'CRD finalization failed'));
      });
    }
  }

  private async orphanDependents(owner: KubeObject): Promise<void> {
    for (const d of this.store.dependentsOf(owner.metadata.uid!)) {
      const r = this.registry.byGroupKey(d.resource);
      if (!r) continue;
      await this.rewrite(r, d.namespace, d.name, (o) => {
        const refs = (o.metadata.ownerReferences ?? []).filter((ref) => ref.uid !== owner.metadata.uid);
        if (refs.length === (o.metadata.ownerReferences ?? []).length) return undefined;
        const next: KubeObject = { ...o, metadata: { ...o.metadata, ownerReferences: refs } };
        if (refs.length === 0) delete next.metadata.ownerReferences;
        return next;
      });
    }
  }

  private deleteDependents(owner: KubeObject, policy: 'Background' | 'Foreground'): void {
    for (const d of this.store.dependentsOf(owner.metadata.uid!)) {
      const r = this.registry.byGroupKey(d.resource);
      const o = this.store.get(d.resource, d.namespace, d.name);
      if (!r || !o) continue;
      const others = (o.metadata.ownerReferences ?? []).filter(
        (ref) => ref.uid !== owner.metadata.uid && this.store.byUid(ref.uid) !== undefined,
      );
      const work =
        others.length > 0
          ? this.rewrite(r, d.namespace, d.name, (live) => {
              const kept = (live.metadata.ownerReferences ?? []).filter(
                (ref) => ref.uid !== owner.metadata.uid && this.store.byUid(ref.uid) !== undefined,
              );
              return kept.length > 0 && kept.length < (live.metadata.ownerReferences ?? []).length
                ? { ...live, metadata: { ...live.metadata, ownerReferences: kept } }
                : undefined;
            })
          : o.metadata.deletionTimestamp
            ? Promise.resolve(o)
            : this.delete(r, d.namespace, d.name, { propagationPolicy: policy });
      work.catch((e) => {
        if (!(e instanceof StatusError && e.code === 404))
          this.log.error({ err: e, dependent: d }, 'garbage collection failed');
      });
    }
  }

  /** After an object is gone: its dependents go (Background), and a waiting foreground owner may finish. */
  private collectAfterRemoval(obj: KubeObject): void {
    setImmediate(() => {
      this.deleteDependents(obj, 'Background');
      for (const ref of obj.metadata.ownerReferences ?? []) {
        const at = this.store.byUid(ref.uid);
        if (!at) continue;
        const owner = this.store.get(at.resource, at.namespace, at.name);
        const r = this.registry.byGroupKey(at.resource);
        if (!owner || !r || !owner.metadata.finalizers?.includes('foregroundDeletion')) continue;
        if (this.store.dependentsOf(ref.uid).length > 0) continue;
        this.rewrite(r, at.namespace, at.name, (live) =>
          live.metadata.finalizers?.includes('foregroundDeletion') &&
          this.store.dependentsOf(ref.uid).length === 0
            ? {
                ...live,
                metadata: {
                  ...live.metadata,
                  finalizers: live.metadata.finalizers.filter((f) => f !== 'foregroundDeletion'),
                },
              }
            : undefined,
        ).catch((e) => this.log.error({ err: e, owner: at }, 'foreground deletion failed'));
      }
      if (obj.metadata.namespace) {
        const ns = this.store.get(NS_KEY, '', obj.metadata.namespace);
        if (ns?.metadata.deletionTimestamp) this.finalizeNamespace(obj.metadata.namespace);
      }
    });
  }

  private terminating = new Set<string>();

  /** The namespace controller: delete everything inside, then the namespace itself. */
  private finalizeNamespace(name: string): void {
    if (this.terminating.has(name)) return;
    this.terminating.add(name);
    setImmediate(async () => {
      try {
        let remaining = 0;
        for (const r of this.registry.all().filter((x) => x.namespaced)) {
          for (const o of this.store.list(resourceKey(r), name)) {
            remaining++;
            if (!o.metadata.deletionTimestamp)
              await this.delete(r, name, o.metadata.name!, {}).catch(() => undefined);
          }
        }
        const stillThere = this.registry
          .all()
          .filter((x) => x.namespaced)
          .some((r) => this.store.list(resourceKey(r), name).length > 0);
        if (!stillThere) {
          await this.removeLatest(this.registry.byGroupKey(NS_KEY)!, '', name);
        }
        void remaining;
      } catch (e) {
        this.log.error({ err: e, namespace: name }, 'namespace termination failed');
      } finally {
        this.terminating.delete(name);
      }
    });
  }
}

function encodeContinue(after: string, rv: number): string {
  return Buffer.from(JSON.stringify({ v: 'kube-lite/v1', after, rv })).toString('base64url');
}

function decodeContinue(token: string, oldest: number): string {
  let parsed: { v?: string; after?: string; rv?: number };
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw badRequest('continue key is not valid: illegal base64 data');
  }
  if (parsed.v !== 'kube-lite/v1' || typeof parsed.after !== 'string')
    throw badRequest('continue key is not valid');
  if (typeof parsed.rv === 'number' && parsed.rv < oldest)
    throw gone(
      'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.',
    );
  return parsed.after;
}
