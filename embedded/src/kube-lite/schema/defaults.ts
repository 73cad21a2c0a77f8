/**
 * Structural defaulting as apiextensions-apiserver does it: run after pruning, on create,
 * update and read from storage. Defaults are copied so objects never share the schema's values.
 */
import type { JSONSchemaProps } from '../types.js';
import { deepCopy, isObject } from './json-value.js';

export function applyDefaults(schema: JSONSchemaProps, obj: unknown): void {
  if (isObject(obj)) {
    const properties = schema.properties;
    if (properties) {
      for (const name in properties) {
        const prop = properties[name]!;
        if (prop.default === undefined) continue;
        const current = obj[name];
        // A null for a non-nullable field would fail validation, so kube treats it as absent.
        if (current === undefined || (current === null && !prop.nullable)) obj[name] = deepCopy(prop.default);
      }
    }
    const additional =
      typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
    for (const key of Object.keys(obj)) {
      // Recursing after setting a default also fills defaults nested inside the default value.
      const sub = properties?.[key] ?? additional;
      if (sub) applyDefaults(sub, obj[key]);
    }
  } else if (Array.isArray(obj) && schema.items) {
    const items = schema.items;
    for (let i = 0; i < obj.length; i++) {
      if (obj[i] === null && items.default !== undefined && !items.nullable) obj[i] = deepCopy(items.default);
      applyDefaults(items, obj[i]);
    }
  }
}
