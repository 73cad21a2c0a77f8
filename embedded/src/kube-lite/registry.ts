import type { JSONSchemaProps, KubeObject } from './types.js';

export interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
  description?: string;
  format?: string;
  priority?: number;
}

/** Everything kube-lite knows about one REST resource (one group/version/plural). */
export interface ResourceInfo {
  group: string;
  version: string;
  /** Versions served for this resource; objects are stored once and relabelled on read. */
  versions: string[];
  plural: string;
  singular: string;
  kind: string;
  listKind: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  hasStatus: boolean;
  /** Custom resources have a schema; built-in kinds are stored generically. */
  schemas?: Record<string, JSONSchemaProps>;
  printerColumns?: Record<string, PrinterColumn[]>;
  /** Built-in kinds whose generation never moves (kube only tracks it for some kinds). */
  tracksGeneration: boolean;
  custom: boolean;
}

export const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/** The key objects are stored under: `group/plural`, `/namespaces` for the core group. */
export const resourceKey = (r: { group: string; plural: string }) => `${r.group}/${r.plural}`;

function builtin(
  group: string,
  version: string,
  kind: string,
  plural: string,
  namespaced: boolean,
  shortNames: string[] = [],
  extra: Partial<ResourceInfo> = {},
): ResourceInfo {
  return {
    group,
    version,
    versions: [version],
    plural,
    singular: kind.toLowerCase(),
    kind,
    listKind: `${kind}List`,
    namespaced,
    shortNames,
    categories: [],
    hasStatus: false,
    tracksGeneration: false,
    custom: false,
    ...extra,
  };
}

export const BUILTIN_RESOURCES: ResourceInfo[] = [
  builtin('', 'v1', 'Namespace', 'namespaces', false, ['ns'], { hasStatus: true }),
  builtin('', 'v1', 'ConfigMap', 'configmaps', true, ['cm']),
  builtin('', 'v1', 'Secret', 'secrets', true),
  builtin('', 'v1', 'ResourceQuota', 'resourcequotas', true, ['quota'], { hasStatus: true }),
  builtin('', 'v1', 'Event', 'events', true, ['ev']),
  builtin('', 'v1', 'ServiceAccount', 'serviceaccounts', true, ['sa']),
  builtin('coordination.k8s.io', 'v1', 'Lease', 'leases', true),
  builtin(
    'apiextensions.k8s.io',
    'v1',
    'CustomResourceDefinition',
    'customresourcedefinitions',
    false,
    ['crd', 'crds'],
    { hasStatus: true, tracksGeneration: true, categories: ['api-extensions'] },
  ),
];

/**
 * v1 Pods: served only when kube-lite runs its kubelet (startKubeLite's `kubelet` option), which is
 * what makes them run; kubectl prints their phase and restarts.
 */
export const POD_RESOURCE: ResourceInfo = builtin('', 'v1', 'Pod', 'pods', true, ['po'], {
  hasStatus: true,
  categories: ['all'],
  printerColumns: {
    v1: [
      { name: 'Status', type: 'string', jsonPath: '.status.phase' },
      { name: 'Restarts', type: 'integer', jsonPath: '.status.containerStatuses[0].restartCount' },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ],
  },
});

interface CrdVersion {
  name: string;
  served?: boolean;
  storage?: boolean;
  schema?: { openAPIV3Schema?: JSONSchemaProps };
  subresources?: { status?: unknown };
  additionalPrinterColumns?: PrinterColumn[];
}

/** Turn a stored CustomResourceDefinition into the resource it serves. */
export function resourceFromCrd(crd: KubeObject): ResourceInfo {
  const spec = crd.spec as {
    group: string;
    scope: string;
    names: {
      plural: string;
      singular?: string;
      kind: string;
      listKind?: string;
      shortNames?: string[];
      categories?: string[];
    };
    versions: CrdVersion[];
  };
  const served = spec.versions.filter((v) => v.served !== false);
  const storage = spec.versions.find((v) => v.storage) ?? spec.versions[0]!;
  const schemas: Record<string, JSONSchemaProps> = {};
  const printerColumns: Record<string, PrinterColumn[]> = {};
  for (const v of spec.versions) {
    schemas[v.name] = v.schema?.openAPIV3Schema ?? {
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
    };
    printerColumns[v.name] = v.additionalPrinterColumns ?? [];
  }
  return {
    group: spec.group,
    version: storage.name,
    versions: served.map((v) => v.name),
    plural: spec.names.plural,
    singular: spec.names.singular ?? spec.names.kind.toLowerCase(),
    kind: spec.names.kind,
    listKind: spec.names.listKind ?? `${spec.names.kind}List`,
    namespaced: spec.scope !== 'Cluster',
    shortNames: spec.names.shortNames ?? [],
    categories: spec.names.categories ?? [],
    hasStatus: spec.versions.some((v) => v.subresources?.status !== undefined),
    schemas,
    printerColumns,
    tracksGeneration: true,
    custom: true,
  };
}

/** Resolves URL segments to resources; CRDs come and go at runtime. */
export class ResourceRegistry {
  private byKey = new Map<string, ResourceInfo>();

  constructor() {
    for (const r of BUILTIN_RESOURCES) this.byKey.set(resourceKey(r), r);
  }

  add(r: ResourceInfo): void {
    this.byKey.set(resourceKey(r), r);
  }

  remove(group: string, plural: string): void {
    const r = this.byKey.get(resourceKey({ group, plural }));
    if (r?.custom) this.byKey.delete(resourceKey(r));
  }

  find(group: string, version: string, plural: string): ResourceInfo | undefined {
    const r = this.byKey.get(resourceKey({ group, plural }));
    return r && r.versions.includes(version) ? r : undefined;
  }

  byGroupKey(key: string): ResourceInfo | undefined {
    return this.byKey.get(key);
  }

  all(): ResourceInfo[] {
    return [...this.byKey.values()];
  }

  /** group → versions served, preferred (storage) version first. */
  groups(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const r of this.byKey.values()) {
      const versions = out.get(r.group) ?? [];
      for (const v of [r.version, ...r.versions]) if (!versions.includes(v)) versions.push(v);
      out.set(r.group, versions);
    }
    return out;
  }
}
