/**
 * Field sets as structured-merge-diff tracks them for managedFields. A path is a list of FieldsV1
 * tokens (`f:name`, `k:{"uid":"…"}`, `v:"value"`, `i:0`) joined by SEP; a set maps each member
 * path to its value in the object it was taken from, so writes can be compared leaf by leaf.
 */
import type { JSONSchemaProps } from '../types.js';
import { sortedJson } from '../schema/go-format.js';
import { isObject, type JsonObject } from './json.js';

export const SEP = '\u0001';

/** Stands in for the value of a member that has members below it (a map entry or list item). */
export const NON_LEAF = Symbol('non-leaf');

export type FieldValues = Map<string, unknown>;

/** ObjectMeta's granular parts; everything else under metadata is an ordinary field. */
const OBJECT_META_SCHEMA: JSONSchemaProps = {
  type: 'object',
  properties: {
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    annotations: { type: 'object', additionalProperties: { type: 'string' } },
    finalizers: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
    ownerReferences: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['uid'],
      items: { type: 'object' },
    },
  },
};

/** Fields the apiserver never records in managedFields (its stripMeta set). */
const STRIPPED_ROOT = new Set(['apiVersion', 'kind']);
const STRIPPED_META = new Set([
  'name',
  'namespace',
  'creationTimestamp',
  'selfLink',
  'uid',
  'generation',
  'managedFields',
  'resourceVersion',
]);

/** The schema for a child of an object node, and whether that child is a map entry. */
export function childSchema(schema: JSONSchemaProps | undefined, key: string, atRoot: boolean) {
  if (atRoot && key === 'metadata') return { schema: OBJECT_META_SCHEMA, mapEntry: false };
  const prop = schema?.properties?.[key];
  if (prop) return { schema: prop, mapEntry: false };
  const additional =
    typeof schema?.additionalProperties === 'object' ? schema.additionalProperties : undefined;
  return { schema: additional, mapEntry: additional !== undefined };
}

export function isAtomicMap(schema: JSONSchemaProps | undefined): boolean {
  return schema?.['x-kubernetes-map-type'] === 'atomic';
}

export function listKeys(schema: JSONSchemaProps | undefined): string[] | undefined {
  if (schema?.['x-kubernetes-list-type'] !== 'map') return undefined;
  const keys = schema['x-kubernetes-list-map-keys'];
  return keys && keys.length > 0 ? keys : undefined;
}

export function isSetList(schema: JSONSchemaProps | undefined): boolean {
  return schema?.['x-kubernetes-list-type'] === 'set';
}

export function keyToken(item: JsonObject, keys: string[]): string {
  const identity: JsonObject = {};
  for (const k of keys) if (k in item) identity[k] = item[k];
  return `k:${sortedJson(identity)}`;
}

export function valueToken(value: unknown): string {
  return `v:${sortedJson(value)}`;
}

/** Every owned path of `obj` with its value, as structured-merge-diff's ToFieldSet walks it. */
export function collectFields(obj: unknown, schema?: JSONSchemaProps): FieldValues {
  const out: FieldValues = new Map();
  if (!isObject(obj)) return out;
  for (const key of Object.keys(obj)) {
    if (STRIPPED_ROOT.has(key)) continue;
    const { schema: sub } = childSchema(schema, key, true);
    const value = obj[key];
    if (key === 'metadata' && isObject(value)) {
      for (const metaKey of Object.keys(value)) {
        if (STRIPPED_META.has(metaKey)) continue;
        const c = childSchema(sub, metaKey, false);
        walk(value[metaKey], c.schema, `f:metadata${SEP}f:${metaKey}`, c.mapEntry, out);
      }
    } else {
      walk(value, sub, `f:${key}`, false, out);
    }
  }
  return out;
}

function walk(
  value: unknown,
  schema: JSONSchemaProps | undefined,
  path: string,
  member: boolean,
  out: FieldValues,
) {
  if (isObject(value) && !isAtomicMap(schema) && Object.keys(value).length > 0) {
    // Map entries are members themselves; struct fields only through their leaves.
    if (member) out.set(path, NON_LEAF);
    for (const key of Object.keys(value)) {
      const c = childSchema(schema, key, false);
      walk(value[key], c.schema, `${path}${SEP}f:${key}`, c.mapEntry, out);
    }
    return;
  }
  if (Array.isArray(value)) {
    const keys = listKeys(schema);
    if (value.length > 0 && keys && value.every(isObject)) {
      for (const item of value as JsonObject[])
        walk(item, schema?.items, `${path}${SEP}${keyToken(item, keys)}`, true, out);
      return;
    }
    if (value.length > 0 && isSetList(schema)) {
      for (const item of value) out.set(`${path}${SEP}${valueToken(item)}`, item);
      return;
    }
  }
  out.set(path, value);
}

/** structured-merge-diff's printed form of a path, e.g. `.spec.ports[name="http"].port`. */
export function pathToString(path: string): string {
  return path
    .split(SEP)
    .map((token) => {
      const body = token.slice(2);
      switch (token[0]) {
        case 'f':
          return `.${body}`;
        case 'k': {
          const key = JSON.parse(body) as JsonObject;
          return `[${Object.keys(key)
            .map((k) => `${k}=${sortedJson(key[k])}`)
            .join(',')}]`;
        }
        case 'v':
          return `[=${body}]`;
        default:
          return `[${body}]`;
      }
    })
    .join('');
}

/** Renders member paths as a FieldsV1 tree; `.` marks a member that also has members below. */
export function toFieldsV1(paths: Iterable<string>): Record<string, unknown> {
  const root: JsonObject = {};
  for (const path of paths) {
    let node = root;
    for (const token of path.split(SEP)) node = (node[token] ??= {}) as JsonObject;
    node['.'] = {};
  }
  return collapse(root);
}

/** Leaves are `{}`; a `.` is only kept next to other entries. */
function collapse(node: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const key of Object.keys(node)) {
    if (key === '.') continue;
    const child = node[key] as JsonObject;
    const keys = Object.keys(child);
    out[key] = keys.length === 1 && keys[0] === '.' ? {} : collapse(child);
    if (keys.includes('.') && keys.length > 1) (out[key] as JsonObject)['.'] = {};
  }
  return out;
}

export function fromFieldsV1(fields: unknown): Set<string> {
  const out = new Set<string>();
  const visit = (node: unknown, prefix: string) => {
    if (!isObject(node)) return;
    for (const key of Object.keys(node)) {
      if (key === '.') {
        if (prefix) out.add(prefix);
        continue;
      }
      const path = prefix ? `${prefix}${SEP}${key}` : key;
      const child = node[key];
      if (isObject(child) && Object.keys(child).length > 0) visit(child, path);
      else out.add(path);
    }
  };
  visit(fields, '');
  return out;
}
