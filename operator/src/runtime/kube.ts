// client-node helpers: typed access to our CRDs and Argo's, informers that restart after errors,
// conditions.
import {
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  makeInformer,
  setHeaderOptions,
  type Informer,
  type KubeConfig,
  type KubernetesObject,
  type ObjectCache,
} from '@kubernetes/client-node';
import type { Condition } from '@sandflow/crds';
import { keepAliveConfig, statusCode } from '@sandflow/crds/kube-client';
import type { Logger } from 'pino';

export { keepAliveConfig, statusCode } from '@sandflow/crds/kube-client';

export interface Kind {
  group: string;
  version: string;
  plural: string;
  namespaced: boolean;
}
export const KINDS = {
  workflow: { group: 'sandflow.io', version: 'v1alpha1', plural: 'workflows', namespaced: true },
  session: { group: 'sandflow.io', version: 'v1alpha1', plural: 'sessions', namespaced: true },
  run: { group: 'sandflow.io', version: 'v1alpha1', plural: 'runs', namespaced: true },
  sandbox: { group: 'sandflow.io', version: 'v1alpha1', plural: 'sandboxes', namespaced: true },
  clusterManager: { group: 'sandflow.io', version: 'v1alpha1', plural: 'clustermanagers', namespaced: false },
  argoWorkflow: { group: 'argoproj.io', version: 'v1alpha1', plural: 'workflows', namespaced: true },
  cronWorkflow: { group: 'argoproj.io', version: 'v1alpha1', plural: 'cronworkflows', namespaced: true },
} satisfies Record<string, Kind>;

const merge = () => setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

export class Kube {
  readonly custom: CustomObjectsApi;
  readonly core: CoreV1Api;
  readonly coordination: CoordinationV1Api;
  constructor(readonly kc: KubeConfig) {
    const api = keepAliveConfig(kc);
    this.custom = api.makeApiClient(CustomObjectsApi);
    this.core = api.makeApiClient(CoreV1Api);
    this.coordination = api.makeApiClient(CoordinationV1Api);
  }
  private ref(kind: Kind, namespace: string | undefined, name: string) {
    return {
      group: kind.group,
      version: kind.version,
      plural: kind.plural,
      name,
      ...(kind.namespaced ? { namespace: namespace! } : {}),
    };
  }
  async get<T>(kind: Kind, namespace: string | undefined, name: string): Promise<T | undefined> {
    try {
      return (await (kind.namespaced
        ? this.custom.getNamespacedCustomObject(this.ref(kind, namespace, name) as never)
        : this.custom.getClusterCustomObject(this.ref(kind, namespace, name) as never))) as T;
    } catch (e) {
      if (statusCode(e) === 404) return undefined;
      throw e;
    }
  }
  create<T>(kind: Kind, namespace: string | undefined, body: object): Promise<T> {
    const r = { group: kind.group, version: kind.version, plural: kind.plural, body };
    return (
      kind.namespaced
        ? this.custom.createNamespacedCustomObject({ ...r, namespace: namespace! })
        : this.custom.createClusterCustomObject(r)
    ) as Promise<T>;
  }
  patch<T>(kind: Kind, namespace: string | undefined, name: string, body: object): Promise<T> {
    const r = { ...this.ref(kind, namespace, name), body };
    return (
      kind.namespaced
        ? this.custom.patchNamespacedCustomObject(r as never, merge())
        : this.custom.patchClusterCustomObject(r as never, merge())
    ) as Promise<T>;
  }
  patchStatus<T>(kind: Kind, namespace: string | undefined, name: string, status: object): Promise<T> {
    const r = { ...this.ref(kind, namespace, name), body: { status } };
    return (
      kind.namespaced
        ? this.custom.patchNamespacedCustomObjectStatus(r as never, merge())
        : this.custom.patchClusterCustomObjectStatus(r as never, merge())
    ) as Promise<T>;
  }
  replaceStatus<T>(kind: Kind, namespace: string, name: string, body: object): Promise<T> {
    return this.custom.replaceNamespacedCustomObjectStatus({
      ...this.ref(kind, namespace, name),
      body,
    } as never) as Promise<T>;
  }
  async delete(kind: Kind, namespace: string | undefined, name: string): Promise<void> {
    try {
      await (kind.namespaced
        ? this.custom.deleteNamespacedCustomObject(this.ref(kind, namespace, name) as never)
        : this.custom.deleteClusterCustomObject(this.ref(kind, namespace, name) as never));
    } catch (e) {
      if (statusCode(e) !== 404) throw e;
    }
  }
  list<T>(kind: Kind): Promise<{ items: T[]; metadata: { resourceVersion?: string } }> {
    const r = { group: kind.group, version: kind.version, plural: kind.plural };
    return (
      kind.namespaced
        ? this.custom.listCustomObjectForAllNamespaces(r)
        : this.custom.listClusterCustomObject(r)
    ) as Promise<{ items: T[]; metadata: { resourceVersion?: string } }>;
  }
}

export type Cache<T> = {
  list(namespace?: string): T[];
  get(name: string, namespace?: string): T | undefined;
};

export interface StartedInformer<T> {
  cache: Cache<T>;
  ready: Promise<void>;
  stop(): Promise<void>;
}

/** An informer over a kind; restarts itself after list/watch errors instead of going quiet. */
export function watchKind<T extends { metadata?: object }>(
  kube: Kube,
  kind: Kind,
  log: Logger,
  on: (type: 'add' | 'update' | 'delete', obj: T) => void,
): StartedInformer<T> {
  const path = `/apis/${kind.group}/${kind.version}/${kind.plural}`;
  const informer: Informer<KubernetesObject> & ObjectCache<KubernetesObject> = makeInformer(
    kube.kc,
    path,
    (() => kube.list(kind)) as never,
  );
  let stopped = false;
  for (const verb of ['add', 'update', 'delete'] as const) informer.on(verb, (o) => on(verb, o as T));
  informer.on('error', (err: unknown) => {
    if (stopped) return;
    log.warn({ err, path }, 'watch failed; restarting');
    setTimeout(() => {
      if (!stopped) informer.start().catch(() => undefined);
    }, 500).unref();
  });
  return {
    cache: {
      list: (namespace?: string) => informer.list(namespace) as unknown as T[],
      get: (name: string, namespace?: string) => informer.get(name, namespace) as unknown as T | undefined,
    },
    ready: informer.start(),
    async stop() {
      stopped = true;
      await informer.stop();
    },
  };
}

/** Sets a condition, keeping lastTransitionTime when its status does not change. */
export function setCondition(
  conditions: Condition[] | undefined,
  c: Omit<Condition, 'lastTransitionTime'>,
  now: Date,
): Condition[] {
  const list = [...(conditions ?? [])];
  const i = list.findIndex((x) => x.type === c.type);
  const prev = i >= 0 ? list[i] : undefined;
  const next: Condition = {
    ...c,
    lastTransitionTime: prev && prev.status === c.status ? prev.lastTransitionTime : now.toISOString(),
  };
  if (i >= 0) list[i] = next;
  else list.push(next);
  return list;
}

/** JSON equality ignoring key order. */
export function sameJson(a: unknown, b: unknown): boolean {
  return stable(a) === stable(b);
}
function stable(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stable).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v as object)
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stable((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v);
}
