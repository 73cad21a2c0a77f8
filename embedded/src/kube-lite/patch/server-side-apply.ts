/**
 * Server-side apply with structured-merge-diff's ownership rules: the applied configuration is
 * merged into the live object, fields another manager owns may only be changed with force, and
 * fields this manager applied before but no longer does are removed unless someone else owns them.
 */
import type { JSONSchemaProps, KubeObject } from '../types.js';
import { ApplyConflictError, type ApplyConflict } from './errors.js';
import { collectFields, NON_LEAF, pathToString, SEP, toFieldsV1 } from './field-set.js';
import { deepCopy, deepEqual, type JsonObject } from './json.js';
import { mergeApplied, removeField } from './apply-merge.js';
import {
  describeManager,
  managerIdentity,
  newEntry,
  readManagedFields,
  writeManagedFields,
} from './managed-fields.js';

export interface ServerSideApplyRequest {
  live: KubeObject | undefined;
  applied: KubeObject;
  manager: string;
  force: boolean;
  schema?: JSONSchemaProps;
  now: string;
  subresource?: string;
}

/** The FieldsV1 set of every field of `obj` a manager would own by applying it. */
export function fieldSetOf(obj: unknown, schema?: JSONSchemaProps): Record<string, unknown> {
  return toFieldsV1(collectFields(obj, schema).keys());
}

export function serverSideApply(req: ServerSideApplyRequest): { object: KubeObject } {
  const { live, manager, force, schema, now, subresource } = req;
  const applied = deepCopy(req.applied);
  delete applied.metadata?.managedFields;
  const appliedFields = collectFields(applied, schema);
  const liveFields = live ? collectFields(live, schema) : new Map<string, unknown>();

  const owned = readManagedFields(live);
  if (live && owned.length === 0) {
    // An object nobody manages yet is owned, as a whole, by a synthetic updater (kube does the same).
    const entry = newEntry('before-first-apply', 'Update', live.apiVersion, now);
    owned.push({ entry, set: new Set(liveFields.keys()), changed: true });
  }
  const identity = managerIdentity({
    manager,
    operation: 'Apply',
    apiVersion: applied.apiVersion,
    subresource,
  });
  const mine = owned.find((o) => managerIdentity(o.entry) === identity);
  const others = owned.filter((o) => o !== mine);

  const conflicts: (ApplyConflict & { path: string })[] = [];
  for (const [path, value] of appliedFields) {
    if (value === NON_LEAF || (liveFields.has(path) && deepEqual(liveFields.get(path), value))) continue;
    for (const o of others) {
      if (o.set.has(path))
        conflicts.push({ manager: describeManager(o.entry), field: pathToString(path), path });
    }
  }
  if (conflicts.length > 0 && !force) {
    throw new ApplyConflictError(conflicts.map(({ manager: m, field }) => ({ manager: m, field })));
  }
  for (const c of conflicts) {
    for (const o of others) if (o.set.delete(c.path)) o.changed = true;
  }

  const base: JsonObject = live
    ? deepCopy(live)
    : { apiVersion: applied.apiVersion, kind: applied.kind, metadata: {} };
  const object = mergeApplied(base, applied, schema) as KubeObject;

  const appliedPaths = new Set(appliedFields.keys());
  const ownedElsewhere = new Set(others.flatMap((o) => [...o.set]));
  const keep = prefixesOf(appliedPaths);
  const keptByOthers = prefixesOf(ownedElsewhere);
  // Shallow paths first: a list item is found by its key fields, so it must go before them.
  const dropped = [...(mine?.set ?? [])].sort((a, b) => a.split(SEP).length - b.split(SEP).length);
  for (const path of dropped) {
    // A dropped map entry or list item survives while another manager owns something inside it.
    if (appliedPaths.has(path) || keptByOthers.has(path)) continue;
    removeField(object, path, keep);
  }

  const entry = newEntry(manager, 'Apply', applied.apiVersion, now, subresource);
  if (mine) Object.assign(mine, { entry, set: appliedPaths, changed: true });
  else owned.push({ entry, set: appliedPaths, changed: true });
  object.metadata.managedFields = writeManagedFields(owned);
  return { object };
}

function prefixesOf(paths: Set<string>): Set<string> {
  const out = new Set<string>();
  for (const path of paths) {
    const tokens = path.split(SEP);
    for (let i = 1; i <= tokens.length; i++) out.add(tokens.slice(0, i).join(SEP));
  }
  return out;
}
