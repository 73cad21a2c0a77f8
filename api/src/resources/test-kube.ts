import { fileURLToPath } from 'node:url';
import { CustomObjectsApi, KubeConfig, type V1CustomResourceDefinition } from '@kubernetes/client-node';
import { CRD_DIR } from '@sandflow/crds';
import type { Knex } from 'knex';
import { createTestDatabase, destroyTestDatabase } from '../test-support/database.js';

// kube-lite is another workspace's (which depends on this one): tests reach it by path, and the
// API itself only through the Kubernetes API.
const EMBEDDED = fileURLToPath(new URL('../../../embedded/src/', import.meta.url));

interface KubeLiteModule {
  startKubeLite(options: { db: Knex; port: number; host: string }): Promise<{
    url: string;
    token: string;
    caCert: string;
    close(): Promise<void>;
  }>;
}
interface CrdModule {
  readCrds(dir: string): V1CustomResourceDefinition[];
  installCrds(kc: KubeConfig, crds: V1CustomResourceDefinition[]): Promise<string[]>;
}

export interface TestKube {
  kubeConfig: KubeConfig;
  close(): Promise<void>;
}

/** kube-lite on a free port with the Sandflow CRDs installed and served. */
export async function startTestKube(): Promise<TestKube> {
  const db = await createTestDatabase();
  const { startKubeLite } = (await import(`${EMBEDDED}kube-lite/index.ts`)) as KubeLiteModule;
  const { readCrds, installCrds } = (await import(`${EMBEDDED}crd-install.ts`)) as CrdModule;
  const kubeLite = await startKubeLite({ db, port: 0, host: '127.0.0.1' });
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [
      { name: 'kube-lite', server: kubeLite.url, caData: Buffer.from(kubeLite.caCert).toString('base64') },
    ],
    users: [{ name: 'sandflow', token: kubeLite.token }],
    contexts: [{ name: 'kube-lite', cluster: 'kube-lite', user: 'sandflow' }],
    currentContext: 'kube-lite',
  });
  await installCrds(kubeConfig, readCrds(CRD_DIR));
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  for (let attempt = 0; ; attempt++) {
    try {
      await custom.listCustomObjectForAllNamespaces({
        group: 'sandflow.io',
        version: 'v1alpha1',
        plural: 'sandboxes',
      });
      break;
    } catch (error) {
      if (attempt > 50) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return {
    kubeConfig,
    async close() {
      await kubeLite.close();
      await destroyTestDatabase(db);
    },
  };
}
