/**
 * RFC 6902 JSON Patch. Errors use the wording of evanphx/json-patch, which kube-apiserver uses:
 * a malformed patch is 400 BadRequest, a patch that does not apply is 422 Invalid.
 */
import { PatchError } from './errors.js';
import { deepCopy, deepEqual, isObject } from './json.js';

export interface JsonPatchOperation {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  path: string;
  from?: string;
  value?: unknown;
}

type Container = Record<string, unknown> | unknown[];

export function applyJsonPatch<T>(doc: T, ops: readonly JsonPatchOperation[]): T {
  if (!Array.isArray(ops))
    throw new PatchError('BadRequest', 'json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  // The root wrapper lets "" (the whole document) be addressed like any other location.
  const root = { doc: deepCopy(doc) as unknown };
  for (const op of ops) applyOperation(root, op);
  return root.doc as T;
}

function applyOperation(root: { doc: unknown }, op: JsonPatchOperation): void {
  if (!isObject(op) || typeof op.path !== 'string')
    throw new PatchError('BadRequest', 'unexpected kind: missing path');
  switch (op.op) {
    case 'add':
      requireValue(op);
      return add(root, op.path, deepCopy(op.value));
    case 'remove':
      remove(root, op.path, 'remove');
      return;
    case 'replace': {
      requireValue(op);
      const { parent, key } = locate(root, op.path, 'replace');
      if (!has(parent, key))
        throw invalid(`replace operation does not apply: doc is missing key: ${op.path}: missing value`);
      set(parent, key, deepCopy(op.value));
      return;
    }
    case 'move': {
      const from = requireFrom(op);
      if (op.path.startsWith(`${from}/`))
        throw invalid(`Unable to move ${from} to ${op.path}: path is a child of from`);
      const value = remove(root, from, 'move');
      return add(root, op.path, value);
    }
    case 'copy': {
      const from = requireFrom(op);
      return add(root, op.path, deepCopy(get(root, from, 'copy')));
    }
    case 'test': {
      const { parent, key } = locate(root, op.path, 'test');
      const actual = has(parent, key) ? read(parent, key) : undefined;
      if (!deepEqual(actual, op.value ?? null)) throw invalid(`testing value ${op.path} failed: test failed`);
      return;
    }
    default:
      throw new PatchError('BadRequest', `Unexpected kind: ${String((op as { op: unknown }).op)}`);
  }
}

function requireValue(op: JsonPatchOperation): void {
  if (!('value' in op)) throw new PatchError('BadRequest', `${op.op} operation has no value: missing value`);
}

function requireFrom(op: JsonPatchOperation): string {
  if (typeof op.from !== 'string')
    throw new PatchError('BadRequest', `${op.op} operation has no from: missing value`);
  return op.from;
}

function invalid(message: string): PatchError {
  return new PatchError('Invalid', message);
}

function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/'))
    throw new PatchError('BadRequest', `JSON pointer must be empty or start with a "/": ${pointer}`);
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Resolves the container holding the last token of `pointer`; the root wrapper holds "". */
function locate(root: { doc: unknown }, pointer: string, op: string): { parent: Container; key: string } {
  const tokens = parsePointer(pointer);
  if (tokens.length === 0) return { parent: root, key: 'doc' };
  let node: unknown = root.doc;
  for (let i = 0; i < tokens.length - 1; i++) {
    const next = isContainer(node) && has(node, tokens[i]!) ? read(node, tokens[i]!) : undefined;
    if (!isContainer(next))
      throw invalid(`${op} operation does not apply: doc is missing path: "${pointer}": missing value`);
    node = next;
  }
  if (!isContainer(node))
    throw invalid(`${op} operation does not apply: doc is missing path: "${pointer}": missing value`);
  return { parent: node, key: tokens[tokens.length - 1]! };
}

function isContainer(v: unknown): v is Container {
  return Array.isArray(v) || isObject(v);
}

function arrayIndex(list: unknown[], key: string, allowEnd: boolean): number {
  if (allowEnd && key === '-') return list.length;
  if (!/^(0|[1-9]\d*)$/.test(key))
    throw invalid(`Unable to access invalid index: ${key}: invalid index referenced`);
  const index = Number(key);
  if (index > list.length || (!allowEnd && index === list.length)) {
    throw invalid(`Unable to access invalid index: ${index}: invalid index referenced`);
  }
  return index;
}

function has(parent: Container, key: string): boolean {
  if (Array.isArray(parent)) return /^(0|[1-9]\d*)$/.test(key) && Number(key) < parent.length;
  return Object.prototype.hasOwnProperty.call(parent, key);
}

function read(parent: Container, key: string): unknown {
  return Array.isArray(parent) ? parent[Number(key)] : parent[key];
}

function set(parent: Container, key: string, value: unknown): void {
  if (Array.isArray(parent)) parent[arrayIndex(parent, key, false)] = value;
  else parent[key] = value;
}

function get(root: { doc: unknown }, pointer: string, op: string): unknown {
  const { parent, key } = locate(root, pointer, op);
  if (!has(parent, key))
    throw invalid(`${op} operation does not apply: doc is missing from path: ${pointer}: missing value`);
  return read(parent, key);
}

function add(root: { doc: unknown }, pointer: string, value: unknown): void {
  const { parent, key } = locate(root, pointer, 'add');
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, key, true), 0, value);
  else parent[key] = value;
}

function remove(root: { doc: unknown }, pointer: string, op: string): unknown {
  const { parent, key } = locate(root, pointer, op);
  if (!has(parent, key)) throw invalid(`Unable to remove nonexistent key: ${key}: missing value`);
  const value = read(parent, key);
  if (Array.isArray(parent)) parent.splice(Number(key), 1);
  else delete parent[key];
  return value;
}
