/**
 * Structural pruning: drops every field the schema does not specify, unless the node preserves
 * unknown fields. Returns the removed paths so `fieldValidation=Strict` can reject them.
 */
import type { JSONSchemaProps } from '../types.js';
import { isObject } from './json-value.js';

const EMBEDDED_KEEP = new Set(['apiVersion', 'kind', 'metadata']);

export function prune(schema: JSONSchemaProps, obj: unknown): string[] {
  const removed: string[] = [];
  if (isObject(obj)) pruneObject(schema, obj, '', removed, true);
  else pruneValue(schema, obj, '', removed);
  return removed;
}

/** The message kube-apiserver uses for a pruned field under fieldValidation=Strict. */
export function unknownFieldMessage(path: string): string {
  return `unknown field ${JSON.stringify(path)}`;
}

function pruneValue(
  schema: JSONSchemaProps | undefined,
  value: unknown,
  path: string,
  removed: string[],
): void {
  if (isObject(value)) {
    pruneObject(schema, value, path, removed, false);
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) pruneValue(schema?.items, value[i], `${path}[${i}]`, removed);
  }
}

function pruneObject(
  schema: JSONSchemaProps | undefined,
  obj: Record<string, unknown>,
  path: string,
  removed: string[],
  isRoot: boolean,
): void {
  // No schema below a preserve-unknown-fields node: everything is kept as is.
  if (schema === undefined) return;
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
  const embedded = isRoot || schema['x-kubernetes-embedded-resource'] === true;
  const additional =
    typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
  for (const key of Object.keys(obj)) {
    const childPath = path === '' ? key : `${path}.${key}`;
    // Resource roots keep their type and metadata; the caller prunes metadata against ObjectMeta.
    if (embedded && EMBEDDED_KEEP.has(key)) continue;
    const prop = schema.properties?.[key];
    if (prop) pruneValue(prop, obj[key], childPath, removed);
    else if (additional) pruneValue(additional, obj[key], childPath, removed);
    else if (schema.additionalProperties === true || preserve)
      pruneValue(undefined, obj[key], childPath, removed);
    else {
      delete obj[key];
      removed.push(childPath);
    }
  }
}
