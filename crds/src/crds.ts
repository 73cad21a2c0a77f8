// The CRD YAML files shipped in crds/, read at runtime (paths resolved relative to this module), so the
// embedded kube-lite, the API and tests install and validate against exactly what kubectl gets.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { parseCrd, type CrdSource, type CustomResourceDefinition, type JSONSchemaProps } from './codegen.js';
import type { SandflowKind } from './generated/types.gen.js';

/** Absolute path of the crds/ folder holding sandflow.io_<plural>.yaml. */
export const CRD_DIR = fileURLToPath(new URL('..', import.meta.url));

/** The raw YAML of every CRD file, sorted by file name. */
export function readCrdSources(dir: string = CRD_DIR): CrdSource[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((file) => ({ file, text: readFileSync(join(dir, file), 'utf8') }));
}

let cache: CustomResourceDefinition[] | undefined;

/** Parsed CustomResourceDefinition objects (cached). */
export function loadCrds(): CustomResourceDefinition[] {
  cache ??= readCrdSources().map((s) => parseCrd(s.text));
  return cache;
}

export function crdFor(kind: SandflowKind): CustomResourceDefinition {
  const crd = loadCrds().find((c) => c.spec.names.kind === kind);
  if (!crd) throw new Error(`no CRD for kind ${kind}`);
  return crd;
}

/** The openAPIV3Schema of a kind's storage version. */
export function crdSchema(kind: SandflowKind): JSONSchemaProps {
  const crd = crdFor(kind);
  const version = crd.spec.versions.find((v) => v.storage) ?? crd.spec.versions[0];
  if (!version) throw new Error(`CRD ${kind} has no version`);
  return version.schema.openAPIV3Schema;
}
