/**
 * managedFields bookkeeping: which manager owns which fields, and how a non-apply write moves
 * ownership (fields a write changes become the writer's and leave everyone else's sets).
 */
import type { JSONSchemaProps, KubeObject, ManagedFieldsEntry } from '../types.js';
import { deepEqual } from './json.js';
import { collectFields, fromFieldsV1, NON_LEAF, toFieldsV1, type FieldValues } from './field-set.js';

export interface OwnedFields {
  entry: ManagedFieldsEntry;
  set: Set<string>;
  changed: boolean;
}

/**
 * The apiserver's manager identity: appliers are identified without their apiVersion so that one
 * applier keeps one entry across versions; updaters per apiVersion.
 */
export function managerIdentity(
  e: Pick<ManagedFieldsEntry, 'manager' | 'operation' | 'apiVersion' | 'subresource'>,
) {
  return JSON.stringify([
    e.manager,
    e.operation,
    e.operation === 'Apply' ? '' : e.apiVersion,
    e.subresource ?? '',
  ]);
}

/** The manager as the conflict message prints it: `"kubectl" using v1 at 2024-01-01T00:00:00Z`. */
export function describeManager(e: ManagedFieldsEntry): string {
  let out = JSON.stringify(e.manager);
  if (e.subresource) out += ` with subresource ${JSON.stringify(e.subresource)}`;
  if (e.operation === 'Update') {
    out += ` using ${e.apiVersion}`;
    if (e.time) out += ` at ${new Date(e.time).toISOString().replace(/\.\d{3}Z$/, 'Z')}`;
  }
  return out;
}

export function readManagedFields(obj: KubeObject | undefined): OwnedFields[] {
  return (obj?.metadata.managedFields ?? []).map((entry) => ({
    entry,
    set: fromFieldsV1(entry.fieldsV1),
    changed: false,
  }));
}

/** Entries back in their stored form; managers left owning nothing are dropped. */
export function writeManagedFields(owned: OwnedFields[]): ManagedFieldsEntry[] {
  return owned
    .filter((o) => o.set.size > 0)
    .map((o) => (o.changed ? { ...o.entry, fieldsType: 'FieldsV1', fieldsV1: toFieldsV1(o.set) } : o.entry));
}

/** Paths whose value differs between two field collections (added or modified leaves). */
export function changedPaths(before: FieldValues, after: FieldValues): string[] {
  const out: string[] = [];
  for (const [path, value] of after) {
    if (!before.has(path)) out.push(path);
    else if (value !== NON_LEAF && !deepEqual(before.get(path), value)) out.push(path);
  }
  return out;
}

export function updateManagedFields(
  oldObj: KubeObject | undefined,
  newObj: KubeObject,
  manager: string,
  operation: 'Update',
  now: string,
  schema?: JSONSchemaProps,
  subresource?: string,
): ManagedFieldsEntry[] {
  const owned = readManagedFields(oldObj);
  const before = oldObj ? collectFields(oldObj, schema) : new Map();
  const after = collectFields(newObj, schema);
  const changed = changedPaths(before, after);
  const removed = [...before.keys()].filter((p) => !after.has(p));
  const identity = managerIdentity({ manager, operation, apiVersion: newObj.apiVersion, subresource });
  let mine = owned.find((o) => managerIdentity(o.entry) === identity);
  for (const o of owned) {
    if (o === mine) continue;
    for (const p of [...changed, ...removed]) if (o.set.delete(p)) o.changed = true;
  }
  if (changed.length > 0 || removed.some((p) => mine?.set.has(p))) {
    if (!mine) {
      mine = {
        entry: newEntry(manager, operation, newObj.apiVersion, now, subresource),
        set: new Set(),
        changed: true,
      };
      owned.push(mine);
    }
    for (const p of changed) mine.set.add(p);
    for (const p of removed) mine.set.delete(p);
    mine.changed = true;
    mine.entry = { ...mine.entry, time: now };
  }
  return writeManagedFields(owned);
}

export function newEntry(
  manager: string,
  operation: 'Apply' | 'Update',
  apiVersion: string,
  time: string,
  subresource?: string,
): ManagedFieldsEntry {
  const entry: ManagedFieldsEntry = {
    manager,
    operation,
    apiVersion,
    time,
    fieldsType: 'FieldsV1',
    fieldsV1: {},
  };
  if (subresource) entry.subresource = subresource;
  return entry;
}
