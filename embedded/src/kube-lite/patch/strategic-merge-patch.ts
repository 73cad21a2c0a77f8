/**
 * Strategic merge patch as k8s.io/apimachinery/pkg/util/strategicpatch applies it for built-in
 * kinds. Which lists merge (and by which key) comes from PatchMeta, keyed by the dotted field
 * path without list indices, e.g. `spec.containers.ports`.
 */
import { PatchError } from './errors.js';
import { deepCopy, deepEqual, isObject, type JsonObject } from './json.js';

export type ListPatchStrategy = { strategy: 'merge'; mergeKey?: string } | { strategy: 'retainKeys' };
export type PatchMeta = Record<string, ListPatchStrategy>;

const PATCH = '$patch';
const RETAIN_KEYS = '$retainKeys';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList/';
const SET_ELEMENT_ORDER = '$setElementOrder/';

export function applyStrategicMergePatch<T>(doc: T, patch: unknown, meta: PatchMeta): T {
  if (!isObject(patch))
    throw new PatchError('BadRequest', 'invalid JSON document: strategic merge patch must be an object');
  const result = mergeMap(isObject(doc) ? deepCopy(doc) : {}, patch, '', meta);
  return (result ?? {}) as T;
}

/** Merges `patch` into `original` (owned by us, so mutated); undefined means "delete this map". */
function mergeMap(
  original: JsonObject,
  patch: JsonObject,
  path: string,
  meta: PatchMeta,
): JsonObject | undefined {
  const directive = patch[PATCH];
  if (directive !== undefined) {
    if (directive === 'delete') return undefined;
    if (directive === 'replace') return stripDirectives(patch) as JsonObject;
    if (directive !== 'merge')
      throw new PatchError(
        'BadRequest',
        `Unknown patch type: ${String(directive)} in map: ${JSON.stringify(patch)}`,
      );
  }
  const retainKeys = patch[RETAIN_KEYS];
  if (retainKeys !== undefined) {
    if (!Array.isArray(retainKeys)) throw new PatchError('BadRequest', `${RETAIN_KEYS} must be a list`);
    // Fields not listed are cleared before the merge: the "retainKeys" strategy of union types.
    for (const key of Object.keys(original)) if (!retainKeys.includes(key)) delete original[key];
  }
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(DELETE_FROM_PRIMITIVE_LIST)) continue;
    const field = key.slice(DELETE_FROM_PRIMITIVE_LIST.length);
    const doomed = patch[key];
    const current = original[field];
    if (Array.isArray(doomed) && Array.isArray(current)) {
      original[field] = current.filter((v) => !doomed.some((d) => deepEqual(d, v)));
    }
  }
  for (const key of Object.keys(patch)) {
    if (key.startsWith('$')) continue;
    const value = patch[key];
    const fieldPath = path === '' ? key : `${path}.${key}`;
    if (value === null) {
      delete original[key];
      continue;
    }
    const current = original[key];
    if (isObject(value)) {
      const merged = mergeMap(isObject(current) ? current : {}, value, fieldPath, meta);
      if (merged === undefined) delete original[key];
      else original[key] = merged;
    } else if (Array.isArray(value)) {
      const strategy = meta[fieldPath];
      original[key] =
        strategy?.strategy === 'merge'
          ? mergeList(Array.isArray(current) ? current : [], value, strategy.mergeKey, fieldPath, meta)
          : replaceList(value);
    } else {
      original[key] = value;
    }
  }
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ELEMENT_ORDER)) continue;
    const field = key.slice(SET_ELEMENT_ORDER.length);
    const order = patch[key];
    const list = original[field];
    const strategy = meta[path === '' ? field : `${path}.${field}`];
    const mergeKey = strategy?.strategy === 'merge' ? strategy.mergeKey : undefined;
    if (Array.isArray(order) && Array.isArray(list))
      original[field] = applyElementOrder(list, order, mergeKey);
  }
  return original;
}

/** A list without a merge strategy is replaced, except that `$patch: replace` markers are dropped. */
function replaceList(patch: unknown[]): unknown[] {
  return patch.filter((v) => !(isObject(v) && v[PATCH] === 'replace')).map(stripDirectives);
}

function mergeList(
  original: unknown[],
  patch: unknown[],
  mergeKey: string | undefined,
  path: string,
  meta: PatchMeta,
) {
  // `{"$patch": "replace"}` anywhere in the list replaces the whole list with the other items.
  if (
    patch.some((v) => isObject(v) && v[PATCH] === 'replace' && (mergeKey === undefined || !(mergeKey in v)))
  ) {
    return replaceList(patch);
  }
  const isPrimitive = (v: unknown) => !isObject(v);
  if (mergeKey === undefined || patch.every(isPrimitive)) {
    // Lists of primitives merge as sets: the patch only adds values missing from the original.
    const result = [...original];
    for (const v of patch) if (!result.some((o) => deepEqual(o, v))) result.push(deepCopy(v));
    return result;
  }
  const result = [...original];
  for (const item of patch) {
    if (!isObject(item))
      throw new PatchError(
        'BadRequest',
        `merging an object in json but data type is not struct, instead is: ${typeof item}`,
      );
    if (!(mergeKey in item))
      throw new PatchError(
        'BadRequest',
        `map: ${JSON.stringify(item)} does not contain declared merge key: ${mergeKey}`,
      );
    const index = result.findIndex((o) => isObject(o) && deepEqual(o[mergeKey], item[mergeKey]));
    if (item[PATCH] === 'delete') {
      if (index >= 0) result.splice(index, 1);
    } else if (item[PATCH] === 'replace') {
      const replacement = stripDirectives(item);
      if (index >= 0) result[index] = replacement;
      else result.push(replacement);
    } else if (index >= 0) {
      const merged = mergeMap(result[index] as JsonObject, item, path, meta);
      if (merged === undefined) result.splice(index, 1);
      else result[index] = merged;
    } else {
      const added = mergeMap({}, item, path, meta);
      if (added !== undefined) result.push(added);
    }
  }
  return result;
}

/**
 * Reorders a merged list as kubectl's `$setElementOrder` asks. Items named in the order come
 * first, in that order; items only the server knows keep their relative position.
 */
function applyElementOrder(list: unknown[], order: unknown[], mergeKey: string | undefined): unknown[] {
  const identity = (v: unknown) => (mergeKey !== undefined && isObject(v) ? v[mergeKey] : v);
  const ordered: unknown[] = [];
  const rest: { item: unknown; index: number }[] = [];
  const positions = order.map(identity);
  const byPosition = new Map<number, unknown>();
  list.forEach((item, index) => {
    const pos = positions.findIndex((p) => deepEqual(p, identity(item)));
    if (pos >= 0) byPosition.set(pos, item);
    else rest.push({ item, index });
  });
  for (const pos of [...byPosition.keys()].sort((a, b) => a - b)) ordered.push(byPosition.get(pos));
  for (const { item, index } of rest) ordered.splice(Math.min(index, ordered.length), 0, item);
  return ordered;
}

/** Removes patch directives from a value about to be stored. */
function stripDirectives(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripDirectives);
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const key of Object.keys(value)) if (!key.startsWith('$')) out[key] = stripDirectives(value[key]);
  return out;
}
