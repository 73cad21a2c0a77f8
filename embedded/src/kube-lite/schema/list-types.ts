/**
 * x-kubernetes-list-type uniqueness, checked by apiextensions after the OpenAPI pass. Paths use
 * field.Path notation, so map entries print as `spec.labels[key]`, not with a dot.
 */
import type { FieldError, JSONSchemaProps } from '../types.js';
import * as fe from './field-errors.js';
import { sortedJson } from './go-format.js';
import { isObject } from './json-value.js';

export function validateListTypes(
  schema: JSONSchemaProps,
  data: unknown,
  path: string,
  errors: FieldError[],
): void {
  if (Array.isArray(data)) {
    const listType = schema['x-kubernetes-list-type'];
    if (listType === 'set') reportDuplicates(data, path, errors, (v) => v);
    else if (listType === 'map') checkListMap(schema['x-kubernetes-list-map-keys'] ?? [], data, path, errors);
    if (schema.items) {
      for (let i = 0; i < data.length; i++) validateListTypes(schema.items, data[i], `${path}[${i}]`, errors);
    }
  } else if (isObject(data)) {
    const additional =
      typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
    for (const key of Object.keys(data)) {
      const prop = schema.properties?.[key];
      if (additional) validateListTypes(additional, data[key], `${path}[${key}]`, errors);
      if (prop) validateListTypes(prop, data[key], path === '' ? key : `${path}.${key}`, errors);
    }
  }
}

/** Reports the second occurrence of each repeated identity, as apiextensions does. */
function reportDuplicates(
  items: unknown[],
  path: string,
  errors: FieldError[],
  shown: (identity: unknown, i: number) => unknown,
) {
  if (items.length <= 1) return;
  const seen = new Map<string, number>();
  items.forEach((item, i) => {
    const key =
      typeof item === 'object' && item !== null ? `o${sortedJson(item)}` : `${typeof item}:${String(item)}`;
    const times = seen.get(key) ?? 0;
    seen.set(key, times + 1);
    if (times === 1) errors.push(fe.duplicate(`${path}[${i}]`, shown(item, i)));
  });
}

function checkListMap(keys: string[], items: unknown[], path: string, errors: FieldError[]): void {
  const bad = items.findIndex((x) => x !== null && !isObject(x));
  if (bad >= 0) {
    errors.push(fe.invalid(`${path}[${bad}]`, items[bad], 'must be an object for an array of list-type map'));
    return;
  }
  const identities = items.map((x) => {
    const identity: Record<string, unknown> = {};
    if (isObject(x)) for (const k of keys) if (k in x) identity[k] = x[k];
    return identity;
  });
  reportDuplicates(identities, path, errors, (identity) => identity);
}
