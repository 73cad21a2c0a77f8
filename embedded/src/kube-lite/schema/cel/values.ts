/**
 * Unstructured JSON to CEL values, guided by the schema as apiextensions' UnstructuredToVal is:
 * integers become int (bigint), numbers double, and untyped values (preserve-unknown-fields,
 * int-or-string) int when integral, as Go's JSON decoding into unstructured gives them.
 */
import type { JSONSchemaProps } from '../../types.js';
import { isObject } from '../json-value.js';

export function toCel(schema: JSONSchemaProps | undefined, value: unknown): unknown {
  if (typeof value === 'number') {
    if (schema?.type === 'number') return value;
    return Number.isInteger(value) ? BigInt(value) : value;
  }
  if (Array.isArray(value)) return value.map((v) => toCel(schema?.items, v));
  if (isObject(value)) {
    const out: Record<string, unknown> = {};
    const additional =
      typeof schema?.additionalProperties === 'object' ? schema.additionalProperties : undefined;
    for (const [k, v] of Object.entries(value)) {
      // CEL has no null field values in typed objects: an explicit null reads as absent.
      if (v === null && schema?.properties?.[k]) continue;
      out[k] = toCel(schema?.properties?.[k] ?? additional, v);
    }
    return out;
  }
  return value;
}
