/** RFC 7386 JSON Merge Patch: objects merge recursively, null deletes, anything else replaces. */
import { deepCopy, isObject } from './json.js';

export function applyMergePatch<T>(doc: T, patch: unknown): T {
  // Copy once up front so the result never shares structure with the caller's document.
  return merge(deepCopy(doc), patch) as T;
}

function merge(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return deepCopy(patch);
  const result: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const key of Object.keys(patch)) {
    const value = patch[key];
    if (value === null) delete result[key];
    else result[key] = merge(result[key], value);
  }
  return result;
}
