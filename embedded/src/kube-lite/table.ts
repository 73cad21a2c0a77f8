import { evaluate } from './jsonpath.js';
import type { PrinterColumn, ResourceInfo } from './registry.js';
import type { KubeObject } from './types.js';

/** k8s.io/apimachinery/pkg/util/duration.HumanDuration. */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8)
    return hours % 24 === 0 ? `${Math.floor(hours / 24)}d` : `${Math.floor(hours / 24)}d${hours % 24}h`;
  const days = Math.floor(hours / 24);
  if (hours < 24 * 365 * 2) return `${days}d`;
  if (hours < 24 * 365 * 8)
    return days % 365 === 0 ? `${Math.floor(days / 365)}y` : `${Math.floor(days / 365)}y${days % 365}d`;
  return `${Math.floor(days / 365)}y`;
}

const age = (ts: unknown) =>
  typeof ts === 'string' ? humanDuration(Date.now() - Date.parse(ts)) : '<unknown>';

const NAME: PrinterColumn = {
  name: 'Name',
  type: 'string',
  jsonPath: '.metadata.name',
  format: 'name',
  description: 'Name must be unique within a namespace.',
};
const AGE: PrinterColumn = {
  name: 'Age',
  type: 'date',
  jsonPath: '.metadata.creationTimestamp',
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
};

type Cell = (o: KubeObject) => unknown;
interface BuiltinColumns {
  columns: PrinterColumn[];
  cells: Cell[];
}

const count = (v: unknown) => (v && typeof v === 'object' ? Object.keys(v).length : 0);
const col = (name: string, type = 'string', priority = 0): PrinterColumn => ({
  name,
  type,
  jsonPath: '',
  priority,
});

const BUILTIN: Record<string, BuiltinColumns> = {
  Namespace: {
    columns: [NAME, col('Status'), AGE],
    cells: [
      (o) => o.metadata.name,
      (o) => (o.status as { phase?: string } | undefined)?.phase ?? '',
      (o) => age(o.metadata.creationTimestamp),
    ],
  },
  ConfigMap: {
    columns: [NAME, col('Data', 'integer'), AGE],
    cells: [
      (o) => o.metadata.name,
      (o) => count(o.data) + count(o.binaryData),
      (o) => age(o.metadata.creationTimestamp),
    ],
  },
  Secret: {
    columns: [NAME, col('Type'), col('Data', 'integer'), AGE],
    cells: [
      (o) => o.metadata.name,
      (o) => o.type ?? 'Opaque',
      (o) => count(o.data),
      (o) => age(o.metadata.creationTimestamp),
    ],
  },
  ServiceAccount: {
    columns: [NAME, col('Secrets', 'integer'), AGE],
    cells: [
      (o) => o.metadata.name,
      (o) => (Array.isArray(o.secrets) ? o.secrets.length : 0),
      (o) => age(o.metadata.creationTimestamp),
    ],
  },
  ResourceQuota: {
    columns: [NAME, AGE, col('Request'), col('Limit')],
    cells: [
      (o) => o.metadata.name,
      (o) => age(o.metadata.creationTimestamp),
      (o) => quotaCell(o, (k) => !k.startsWith('limits.')),
      (o) => quotaCell(o, (k) => k.startsWith('limits.')),
    ],
  },
  Lease: {
    columns: [NAME, col('Holder'), AGE],
    cells: [
      (o) => o.metadata.name,
      (o) => (o.spec as { holderIdentity?: string } | undefined)?.holderIdentity ?? '',
      (o) => age(o.metadata.creationTimestamp),
    ],
  },
  Event: {
    columns: [col('Last Seen'), col('Type'), col('Reason'), col('Object'), col('Message')],
    cells: [
      (o) => age(o.lastTimestamp ?? o.eventTime ?? o.metadata.creationTimestamp),
      (o) => o.type ?? '',
      (o) => o.reason ?? '',
      (o) => {
        const io = o.involvedObject as { kind?: string; name?: string } | undefined;
        return `${(io?.kind ?? '').toLowerCase()}/${io?.name ?? ''}`;
      },
      (o) => o.message ?? '',
    ],
  },
  CustomResourceDefinition: {
    columns: [NAME, { name: 'Created At', type: 'date', jsonPath: '' }],
    cells: [(o) => o.metadata.name, (o) => o.metadata.creationTimestamp],
  },
};

function quotaCell(o: KubeObject, pick: (k: string) => boolean): string {
  const status = (o.status ?? {}) as { hard?: Record<string, unknown>; used?: Record<string, unknown> };
  const hard = status.hard ?? (o.spec as { hard?: Record<string, unknown> } | undefined)?.hard ?? {};
  return Object.keys(hard)
    .filter(pick)
    .sort()
    .map((k) => `${k}: ${String(status.used?.[k] ?? 0)}/${String(hard[k])}`)
    .join(', ');
}

function customCell(c: PrinterColumn, o: KubeObject): unknown {
  const values = evaluate(c.jsonPath, o);
  if (values.length === 0) return c.type === 'date' ? '<unknown>' : null;
  const v = values[0];
  if (c.type === 'date') return age(v);
  if (c.type === 'integer' || c.type === 'number') return typeof v === 'number' ? v : Number(v);
  if (c.type === 'boolean') return Boolean(v);
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

function partial(o: KubeObject, includeObject: string): unknown {
  if (includeObject === 'None') return undefined;
  if (includeObject === 'Object') return o;
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata };
}

/** The meta.k8s.io/v1 Table kubectl prints, with the columns kube-apiserver would choose. */
export function toTable(
  r: ResourceInfo,
  version: string,
  objects: KubeObject[],
  meta: { resourceVersion: string; continue?: string | undefined },
  includeObject = 'Metadata',
): Record<string, unknown> {
  let columns: PrinterColumn[];
  let cells: Cell[];
  const builtin = !r.custom ? BUILTIN[r.kind] : undefined;
  if (builtin) {
    columns = builtin.columns;
    cells = builtin.cells;
  } else {
    const printer = r.printerColumns?.[version] ?? [];
    columns = printer.length ? [NAME, ...printer] : [NAME, AGE];
    cells = columns.map((c) =>
      c === NAME ? (o: KubeObject) => o.metadata.name : (o: KubeObject) => customCell(c, o),
    );
  }
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: {
      resourceVersion: meta.resourceVersion,
      ...(meta.continue ? { continue: meta.continue } : {}),
    },
    columnDefinitions: columns.map((c) => ({
      name: c.name,
      type: c.type,
      format: c.format ?? '',
      description: c.description ?? '',
      priority: c.priority ?? 0,
    })),
    rows: objects.map((o) => ({ cells: cells.map((f) => f(o) ?? null), object: partial(o, includeObject) })),
  };
}
