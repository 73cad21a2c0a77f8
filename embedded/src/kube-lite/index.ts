import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Knex } from 'knex';
import pino, { type Logger } from 'pino';
import type { KubeLiteEncryption } from './encryption.js';
import { createHandler, createUpgradeHandler } from './http-server.js';
import { ExecServer } from './kubelet/exec-server.js';
import { Kubelet } from './kubelet/kubelet.js';
import type { KubeletOptions } from './kubelet/options.js';
import { loadOrCreateToken, writeKubeconfig } from './kubeconfig.js';
import { Persistence } from './persistence.js';
import { POD_RESOURCE, ResourceRegistry, resourceKey } from './registry.js';
import { RestStorage } from './rest-storage.js';
import { ObjectStore } from './store.js';
import { loadOrCreateServingCert } from './tls.js';
import type { KubeObject } from './types.js';

export interface KubeLiteOptions {
  db: Knex;
  host?: string;
  port?: number;
  /** Where the token and kubeconfig are kept; omitted = a throwaway token, no files. */
  dataDir?: string | undefined;
  /** Where to write the kubeconfig; defaults to `<dataDir>/kubeconfig`. */
  kubeconfigPath?: string | undefined;
  logger?: Logger;
  /**
   * Run Pods on this machine (kubelet/): serves `v1 pods` (with `pods/exec`) and runs them under
   * bwrap over their images. Without it kube-lite serves no pods.
   */
  kubelet?: KubeletOptions;
  /**
   * Keep v1 Secrets encrypted at rest (encryption.ts, the API's SANDFLOW_SECRETS_KEY and
   * SANDFLOW_SECRETS_KEY_PREVIOUS): Secrets stored before in clear or under `previous` are
   * rewritten under `key` at start. Without it Secrets are stored as they are.
   */
  encryption?: KubeLiteEncryption | undefined;
}

export interface KubeLite {
  url: string;
  token: string;
  /** PEM of the self-signed serving certificate (the CA clients must trust). */
  caCert: string;
  kubeconfigPath: string | undefined;
  store: ObjectStore;
  /** Create or replace an object in-process (used to install CRDs at start). */
  ensure(obj: KubeObject): Promise<KubeObject>;
  close(): Promise<void>;
}

/** Starts kube-lite: loads its state from the database and serves the Kubernetes API on loopback. */
export async function startKubeLite(options: KubeLiteOptions): Promise<KubeLite> {
  const log = (options.logger ?? pino({ level: 'silent' })).child({ component: 'kube-lite' });
  const persistence = new Persistence(options.db, { encryption: options.encryption, log });
  await persistence.migrate();
  const store = new ObjectStore(persistence);
  await store.load();
  const registry = new ResourceRegistry();
  if (options.kubelet) registry.add(POD_RESOURCE);
  const storage = new RestStorage(store, registry, log);
  storage.registerStoredCrds();
  await ensureDefaultNamespaces(storage, registry);
  store.startWatchHistory();
  const kubelet = options.kubelet
    ? new Kubelet(options.kubelet, store, storage, log.child({ component: 'kubelet' }))
    : undefined;
  await kubelet?.start();
  const exec = kubelet ? new ExecServer(kubelet, log) : undefined;

  const token = loadOrCreateToken(options.dataDir);
  const host = options.host ?? '127.0.0.1';
  let address = '';
  const tls = await loadOrCreateServingCert(options.dataDir);
  const server = https.createServer(
    { cert: tls.cert, key: tls.key },
    createHandler({
      token,
      store,
      storage,
      registry,
      log,
      address: () => address,
      podLog: kubelet && ((ns, name, q) => kubelet.podLog(ns, name, q)),
    }),
  );
  server.keepAliveTimeout = 65_000;
  if (exec) server.on('upgrade', createUpgradeHandler({ token, log, exec }));
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e) =>
      reject(new Error(`kube-lite cannot listen on ${host}:${options.port ?? 0}`, { cause: e })),
    );
    server.listen(options.port ?? 0, host, resolve);
  });
  const port = (server.address() as AddressInfo).port;
  address = `${host}:${port}`;
  const url = `https://${address}`;
  const kubeconfigPath =
    options.kubeconfigPath ?? (options.dataDir ? path.join(options.dataDir, 'kubeconfig') : undefined);
  if (kubeconfigPath) writeKubeconfig(kubeconfigPath, url, token, tls.cert);
  log.info({ url, objects: store.resources().reduce((n, r) => n + store.count(r), 0) }, 'kube-lite serving');

  return {
    url,
    token,
    caCert: tls.cert,
    kubeconfigPath,
    store,
    async ensure(obj) {
      const [groupVersion, version] = obj.apiVersion.includes('/')
        ? obj.apiVersion.split('/')
        : ['', obj.apiVersion];
      const r = registry.all().find((x) => x.kind === obj.kind && x.group === (version ? groupVersion : ''));
      if (!r) throw new Error(`kube-lite does not serve ${obj.apiVersion} ${obj.kind}`);
      const v = version ?? groupVersion!;
      const ns = obj.metadata.namespace ?? '';
      const ctx = { manager: 'sandflow', fieldValidation: 'Strict' as const, dryRun: false, warnings: [] };
      const existing = store.get(resourceKey(r), r.namespaced ? ns : '', obj.metadata.name!);
      if (!existing) return storage.create(r, v, ns, structuredClone(obj), ctx);
      const next = structuredClone(obj);
      next.metadata = { ...next.metadata, resourceVersion: existing.metadata.resourceVersion! };
      return storage.update(r, v, ns, obj.metadata.name!, next, ctx);
    },
    async close() {
      exec?.close();
      await kubelet?.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await persistence.drain();
    },
  };
}

/** kube-apiserver always has these namespaces. */
async function ensureDefaultNamespaces(storage: RestStorage, registry: ResourceRegistry): Promise<void> {
  const r = registry.find('', 'v1', 'namespaces')!;
  for (const name of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
    try {
      storage.get(r, '', name);
    } catch {
      await storage.create(
        r,
        'v1',
        '',
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
        {
          manager: 'kube-lite',
          fieldValidation: 'Strict',
          dryRun: false,
          warnings: [],
        },
      );
    }
  }
}

export type { KubeLiteEncryption } from './encryption.js';
export { UnreadableObjectError } from './encryption.js';
export type { KubeletOptions } from './kubelet/options.js';
export type { KubeObject } from './types.js';
