// Thin client-node helpers for the runner (and its informers restarting after errors).
import {
  CustomObjectsApi,
  PatchStrategy,
  makeInformer,
  setHeaderOptions,
  type Informer,
  type KubeConfig,
  type KubernetesObject,
  type ObjectCache,
} from '@kubernetes/client-node';
import { keepAliveConfig } from '@sandflow/crds/kube-client';
import type { Logger } from 'pino';
import { ARGO_GROUP, ARGO_VERSION } from './argo.js';

export { keepAliveConfig, statusCode } from '@sandflow/crds/kube-client';

export class ArgoClient {
  readonly api: CustomObjectsApi;
  /** keepAlive: one pooled HTTPS connection set instead of a new connection per call (see keepAliveConfig). */
  constructor(
    readonly kc: KubeConfig,
    opts: { keepAlive?: boolean } = {},
  ) {
    this.api = (opts.keepAlive ? keepAliveConfig(kc) : kc).makeApiClient(CustomObjectsApi);
  }
  get<T>(plural: string, namespace: string, name: string): Promise<T> {
    return this.api.getNamespacedCustomObject({
      group: ARGO_GROUP,
      version: ARGO_VERSION,
      plural,
      namespace,
      name,
    }) as Promise<T>;
  }
  create<T>(plural: string, namespace: string, body: object): Promise<T> {
    return this.api.createNamespacedCustomObject({
      group: ARGO_GROUP,
      version: ARGO_VERSION,
      plural,
      namespace,
      body,
    }) as Promise<T>;
  }
  replaceStatus<T>(plural: string, namespace: string, name: string, body: object): Promise<T> {
    return this.api.replaceNamespacedCustomObjectStatus({
      group: ARGO_GROUP,
      version: ARGO_VERSION,
      plural,
      namespace,
      name,
      body,
    }) as Promise<T>;
  }
  mergePatch<T>(plural: string, namespace: string, name: string, body: object, status = false): Promise<T> {
    const req = { group: ARGO_GROUP, version: ARGO_VERSION, plural, namespace, name, body };
    const opts = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
    return (
      status
        ? this.api.patchNamespacedCustomObjectStatus(req, opts)
        : this.api.patchNamespacedCustomObject(req, opts)
    ) as Promise<T>;
  }
  delete(plural: string, namespace: string, name: string) {
    return this.api.deleteNamespacedCustomObject({
      group: ARGO_GROUP,
      version: ARGO_VERSION,
      plural,
      namespace,
      name,
    });
  }
  list<T>(plural: string) {
    return this.api.listCustomObjectForAllNamespaces({
      group: ARGO_GROUP,
      version: ARGO_VERSION,
      plural,
    }) as Promise<{
      items: T[];
      metadata: { resourceVersion?: string };
    }>;
  }
}

/** An informer that restarts itself after a watch or list error instead of going quiet. */
export function startInformer<T extends { metadata?: object }>(
  kc: KubeConfig,
  path: string,
  list: () => Promise<{ items: T[]; metadata?: { resourceVersion?: string } }>,
  log: Logger,
  handlers: { add?: (o: T) => void; update?: (o: T) => void; delete?: (o: T) => void },
): {
  informer: Informer<KubernetesObject> & ObjectCache<KubernetesObject>;
  ready: Promise<void>;
  stop: () => Promise<void>;
} {
  const informer = makeInformer<KubernetesObject>(kc, path, list as never);
  let stopped = false;
  const h = handlers as { [k: string]: ((o: KubernetesObject) => void) | undefined };
  for (const verb of ['add', 'update', 'delete'] as const) {
    const fn = h[verb];
    if (fn) informer.on(verb, (o) => fn(o));
  }
  informer.on('error', (err: unknown) => {
    if (stopped) return;
    log.warn({ err, path }, 'watch failed; restarting');
    setTimeout(() => {
      if (!stopped) informer.start().catch(() => undefined);
    }, 500).unref();
  });
  const ready = informer.start();
  return {
    informer,
    ready,
    stop: async () => {
      stopped = true;
      await informer.stop();
    },
  };
}
