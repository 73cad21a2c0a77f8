// Typed access to custom objects (ours and Argo's) through client-node, on one keep-alive agent.
import https from 'node:https';
import {
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
} from '@kubernetes/client-node';
import { isNotFound } from './errors.js';
import type { Kind } from './names.js';

/**
 * The KubeConfig for request/response API clients with one keep-alive HTTPS agent: client-node makes a
 * new agent (so a new TCP connection and TLS handshake on both ends) for every call otherwise, which
 * was a large share of the CPU time of a busy runner/operator and of kube-lite. Watches keep their own.
 */
export function keepAliveConfig(kc: KubeConfig): KubeConfig {
  type CreateAgent = (
    cluster: { server?: string; proxyUrl?: string } | undefined,
    o: https.AgentOptions,
  ) => unknown;
  let agent: https.Agent | undefined;
  const original = (kc as unknown as { createAgent: CreateAgent }).createAgent;
  const derived = Object.create(kc) as { createAgent: CreateAgent };
  derived.createAgent = (cluster, options) => {
    if (!cluster?.server?.startsWith('https:') || cluster.proxyUrl)
      return original.call(kc, cluster, options);
    return (agent ??= new https.Agent({
      ...options,
      keepAlive: true,
      keepAliveMsecs: 1000,
      scheduling: 'lifo',
    }));
  };
  return derived as unknown as KubeConfig;
}

export interface ObjectList<T> {
  items: T[];
  metadata: { resourceVersion?: string };
}

/** Optimistic concurrency: the write fails with 409 Conflict unless the object is still at this version. */
export interface WriteOptions {
  resourceVersion?: string;
}

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
    const { group, version, plural } = kind;
    return { group, version, plural, name, ...(kind.namespaced ? { namespace: namespace! } : {}) } as {
      group: string;
      version: string;
      plural: string;
      name: string;
      namespace: string;
    };
  }

  /** The object, or undefined when there is none. */
  async get<T>(kind: Kind, namespace: string | undefined, name: string): Promise<T | undefined> {
    const r = this.ref(kind, namespace, name);
    try {
      return (await (kind.namespaced
        ? this.custom.getNamespacedCustomObject(r)
        : this.custom.getClusterCustomObject(r))) as T;
    } catch (e) {
      if (isNotFound(e)) return undefined;
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

  /** A JSON merge patch of the object (not its status). */
  patch<T>(kind: Kind, namespace: string | undefined, name: string, body: object): Promise<T> {
    const r = { ...this.ref(kind, namespace, name), body };
    return (
      kind.namespaced
        ? this.custom.patchNamespacedCustomObject(r, merge())
        : this.custom.patchClusterCustomObject(r, merge())
    ) as Promise<T>;
  }

  /** A JSON merge patch of the status subresource (only for kinds that have one: not Argo's). */
  patchStatus<T>(
    kind: Kind,
    namespace: string | undefined,
    name: string,
    status: object,
    opts: WriteOptions = {},
  ): Promise<T> {
    const body = {
      ...(opts.resourceVersion ? { metadata: { resourceVersion: opts.resourceVersion } } : {}),
      status,
    };
    const r = { ...this.ref(kind, namespace, name), body };
    return (
      kind.namespaced
        ? this.custom.patchNamespacedCustomObjectStatus(r, merge())
        : this.custom.patchClusterCustomObjectStatus(r, merge())
    ) as Promise<T>;
  }

  /**
   * PUT of the whole object (spec, metadata and status alike). `body.metadata.resourceVersion` makes it
   * conditional: 409 Conflict when anyone wrote the object since, so nothing they wrote is overwritten.
   * This is how status is written on kinds without a status subresource, such as Argo's.
   */
  replace<T>(kind: Kind, namespace: string | undefined, name: string, body: object): Promise<T> {
    const r = { ...this.ref(kind, namespace, name), body };
    return (
      kind.namespaced
        ? this.custom.replaceNamespacedCustomObject(r)
        : this.custom.replaceClusterCustomObject(r)
    ) as Promise<T>;
  }

  /** Deletes the object; one that is already gone is not an error. */
  async delete(kind: Kind, namespace: string | undefined, name: string): Promise<void> {
    const r = this.ref(kind, namespace, name);
    try {
      await (kind.namespaced
        ? this.custom.deleteNamespacedCustomObject(r)
        : this.custom.deleteClusterCustomObject(r));
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }

  list<T>(kind: Kind): Promise<ObjectList<T>> {
    if (!kind.group) return this.listCore<T>(kind);
    const r = { group: kind.group, version: kind.version, plural: kind.plural };
    return (
      kind.namespaced
        ? this.custom.listCustomObjectForAllNamespaces(r)
        : this.custom.listClusterCustomObject(r)
    ) as Promise<ObjectList<T>>;
  }

  /** The core kinds of CORE_KINDS, across namespaces. */
  private listCore<T>(kind: Kind): Promise<ObjectList<T>> {
    if (kind.plural === 'namespaces') return this.core.listNamespace() as Promise<ObjectList<T>>;
    if (kind.plural === 'resourcequotas')
      return this.core.listResourceQuotaForAllNamespaces() as Promise<ObjectList<T>>;
    throw new Error(`listing core ${kind.plural} is not supported`);
  }
}
