import fs from 'node:fs';
import path from 'node:path';
import {
  ApiextensionsV1Api,
  CustomObjectsApi,
  loadAllYaml,
  type KubeConfig,
  type V1CustomResourceDefinition,
} from '@kubernetes/client-node';
import { CRD_DIR, type ClusterManager } from '@sandflow/crds';
import { isAlreadyExists } from '@sandflow/kube';

const REF = { group: 'sandflow.io', version: 'v1alpha1', plural: 'clustermanagers' };
let counter = 0;

/** Installs the ClusterManager CRD (crds/sandflow.io_clustermanagers.yaml) unless it is there. */
export async function installClusterManagerCrd(kubeConfig: KubeConfig): Promise<void> {
  const [crd] = loadAllYaml(
    fs.readFileSync(path.join(CRD_DIR, 'sandflow.io_clustermanagers.yaml'), 'utf8'),
  ) as V1CustomResourceDefinition[];
  const api = kubeConfig.makeApiClient(ApiextensionsV1Api);
  try {
    await api.createCustomResourceDefinition({ body: crd! });
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
  }
  // Served once established: wait until a list answers.
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  for (let attempt = 0; ; attempt++) {
    try {
      await custom.listClusterCustomObject(REF);
      return;
    } catch (error) {
      if (attempt > 50) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/**
 * A ClusterManager as an agent (or the operator) would register it: `resources` in
 * millicores and MB, `status.lastSeen` = `lastSeen` (default now; null: never seen).
 */
export async function createClusterManager(
  kubeConfig: KubeConfig,
  options: {
    resources: { cpu: number; memory: number; disk: number };
    lastSeen?: Date | null;
    name?: string;
  },
): Promise<ClusterManager> {
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const body: ClusterManager = {
    apiVersion: 'sandflow.io/v1alpha1',
    kind: 'ClusterManager',
    metadata: { name: options.name ?? `cluster-${++counter}` },
    spec: { title: 'test cluster', address: 'test', resources: options.resources },
  };
  const created = (await custom.createClusterCustomObject({ ...REF, body })) as ClusterManager;
  if (options.lastSeen === null) return created;
  return (await custom.replaceClusterCustomObjectStatus({
    ...REF,
    name: created.metadata.name!,
    body: { ...created, status: { lastSeen: (options.lastSeen ?? new Date()).toISOString() } },
  })) as ClusterManager;
}

/** Deletes every ClusterManager. */
export async function deleteClusterManagers(kubeConfig: KubeConfig): Promise<void> {
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const list = (await custom.listClusterCustomObject(REF)) as { items: ClusterManager[] };
  for (const item of list.items)
    await custom.deleteClusterCustomObject({ ...REF, name: item.metadata.name! });
}
