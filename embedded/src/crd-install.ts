import fs from 'node:fs';
import path from 'node:path';
import {
  ApiextensionsV1Api,
  type KubeConfig,
  type V1CustomResourceDefinition,
  loadAllYaml,
} from '@kubernetes/client-node';
import { isNotFound } from '@sandflow/kube';

/** Every CustomResourceDefinition in the YAML files of a folder. */
export function readCrds(dir: string): V1CustomResourceDefinition[] {
  if (!fs.existsSync(dir)) return [];
  const out: V1CustomResourceDefinition[] = [];
  for (const file of fs
    .readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()) {
    const full = path.join(dir, file);
    // loadAllYaml deserializes into client-node's models (e.g. `enum` → `_enum`), which
    // is the shape the typed API client serializes back faithfully.
    let docs: unknown[];
    try {
      docs = loadAllYaml(fs.readFileSync(full, 'utf8'));
    } catch (e) {
      throw new Error(`${full} is not valid YAML`, { cause: e });
    }
    for (const obj of docs as (V1CustomResourceDefinition | null)[]) {
      if (obj?.kind === 'CustomResourceDefinition') out.push(obj);
    }
  }
  return out;
}

/** Create or replace each CRD through the Kubernetes API (kube-lite or a real cluster). */
export async function installCrds(kc: KubeConfig, crds: V1CustomResourceDefinition[]): Promise<string[]> {
  const api = kc.makeApiClient(ApiextensionsV1Api);
  const names: string[] = [];
  for (const crd of crds) {
    const name = crd.metadata!.name!;
    try {
      const live = await api.readCustomResourceDefinition({ name });
      await api.replaceCustomResourceDefinition({
        name,
        body: { ...crd, metadata: { ...crd.metadata, resourceVersion: live.metadata!.resourceVersion! } },
        fieldManager: 'sandflow',
      });
    } catch (e) {
      if (!isNotFound(e)) throw new Error(`installing CRD ${name} failed`, { cause: e });
      await api.createCustomResourceDefinition({ body: crd, fieldManager: 'sandflow' });
    }
    names.push(name);
  }
  return names;
}
