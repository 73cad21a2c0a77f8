/**
 * The object-level operations of server-side apply: merging an applied configuration into the
 * live object, and removing a field by its managedFields path.
 */
import type { JSONSchemaProps } from '../types.js';
import { deepCopy, deepEqual, isObject, type JsonObject } from './json.js';
import { childSchema, isAtomicMap, isSetList, keyToken, listKeys, SEP, valueToken } from './field-set.js';

/** Merges `applied` into `live` (both owned by the caller; `live` is mutated and returned). */
export function mergeApplied(
  live: JsonObject,
  applied: JsonObject,
  schema: JSONSchemaProps | undefined,
): JsonObject {
  return mergeObject(live, applied, schema, true);
}

function mergeObject(
  live: JsonObject,
  applied: JsonObject,
  schema: JSONSchemaProps | undefined,
  atRoot: boolean,
) {
  for (const key of Object.keys(applied)) {
    const value = applied[key];
    if (value === null) {
      delete live[key];
      continue;
    }
    live[key] = mergeValue(live[key], value, childSchema(schema, key, atRoot).schema);
  }
  return live;
}

function mergeValue(live: unknown, applied: unknown, schema: JSONSchemaProps | undefined): unknown {
  if (isObject(live) && isObject(applied) && !isAtomicMap(schema))
    return mergeObject(live, applied, schema, false);
  if (Array.isArray(live) && Array.isArray(applied)) {
    const keys = listKeys(schema);
    if (keys && live.every(isObject) && applied.every(isObject)) {
      // Associative lists merge item by item; items only the live object has stay where they are.
      const result = [...live] as JsonObject[];
      for (const item of applied as JsonObject[]) {
        const token = keyToken(item, keys);
        const index = result.findIndex((x) => keyToken(x, keys) === token);
        if (index >= 0) result[index] = mergeObject(result[index]!, item, schema?.items, false);
        else result.push(deepCopy(item));
      }
      return result;
    }
    if (isSetList(schema))
      return [...live, ...applied.filter((v) => !live.some((l) => deepEqual(l, v))).map(deepCopy)];
  }
  return deepCopy(applied);
}

/**
 * Deletes the value at `path`, then any object emptied by that deletion unless `keep` holds its
 * path (it still belongs to the applied configuration).
 */
export function removeField(obj: JsonObject, path: string, keep: Set<string>): void {
  const tokens = path.split(SEP);
  const chain: { container: JsonObject | unknown[]; index: string | number }[] = [];
  let node: unknown = obj;
  for (const token of tokens) {
    const index = locate(node, token);
    if (index === undefined) return;
    chain.push({ container: node as JsonObject | unknown[], index });
    node = Array.isArray(node) ? node[index as number] : (node as JsonObject)[index as string];
  }
  for (let depth = chain.length - 1; depth >= 0; depth--) {
    const { container, index } = chain[depth]!;
    if (depth < chain.length - 1) {
      const child = Array.isArray(container) ? container[index as number] : container[index as string];
      const prefix = tokens.slice(0, depth + 1).join(SEP);
      // Never remove metadata itself: it is not a field anyone owns.
      if (!isObject(child) || Object.keys(child).length > 0 || keep.has(prefix) || prefix === 'f:metadata')
        return;
    }
    if (Array.isArray(container)) container.splice(index as number, 1);
    else delete container[index as string];
  }
}

function locate(node: unknown, token: string): string | number | undefined {
  const body = token.slice(2);
  if (token.startsWith('f:')) return isObject(node) && body in node ? body : undefined;
  if (!Array.isArray(node)) return undefined;
  let index = -1;
  if (token.startsWith('k:')) {
    const keys = Object.keys(JSON.parse(body) as JsonObject);
    index = node.findIndex((item) => isObject(item) && keyToken(item, keys) === token);
  } else if (token.startsWith('v:')) {
    index = node.findIndex((item) => valueToken(item) === token);
  } else if (token.startsWith('i:')) {
    index = Number(body) < node.length ? Number(body) : -1;
  }
  return index >= 0 ? index : undefined;
}
