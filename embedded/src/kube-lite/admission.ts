import { randomUUID } from 'node:crypto';
import { BUILTIN_SCHEMAS } from './builtin-schemas.js';
import { validateCrd } from './crd.js';
import { StatusError, badRequest, invalid, staleResourceVersion } from './errors.js';
import { unknownMetadataFields, validateMetadata } from './metadata.js';
import { updateManagedFields } from './patch/index.js';
import type { ResourceInfo } from './registry.js';
import { applyDefaults, prune, schemaHasRules, validate, validateRules } from './schema/index.js';
import type { FieldError, JSONSchemaProps, KubeObject } from './types.js';
import { deepEqual, isPlainObject, nowIso, randomSuffix } from './util.js';

export interface WriteContext {
  /** Field manager recorded in managedFields. */
  manager: string;
  fieldValidation: 'Strict' | 'Warn' | 'Ignore';
  dryRun: boolean;
  /** Warnings returned to the client in `Warning` headers. */
  warnings: string[];
}

export const apiVersionOf = (r: ResourceInfo, version: string) =>
  r.group ? `${r.group}/${version}` : version;

export function schemaFor(r: ResourceInfo, version: string): JSONSchemaProps | undefined {
  return r.custom ? r.schemas?.[version] : BUILTIN_SCHEMAS[r.kind];
}

/** Checks the envelope of a request body: an object of the right apiVersion and kind. */
export function checkEnvelope(r: ResourceInfo, version: string, body: unknown): KubeObject {
  if (!isPlainObject(body)) throw badRequest('the request body must be a JSON or YAML object');
  const expected = apiVersionOf(r, version);
  // Typed endpoints default a missing apiVersion/kind from the URL; custom resources,
  // decoded as unstructured, must carry them (as in kube-apiserver).
  if (!r.custom) {
    if (body.kind === undefined || body.kind === '') body.kind = r.kind;
    if (body.apiVersion === undefined || body.apiVersion === '') body.apiVersion = expected;
  }
  if (body.kind === undefined || body.kind === '')
    throw badRequest(`Object 'Kind' is missing in '${JSON.stringify(body).slice(0, 200)}'`);
  if (body.apiVersion === undefined || body.apiVersion === '')
    throw badRequest(`Object 'apiVersion' is missing in '${JSON.stringify(body).slice(0, 200)}'`);
  if (body.apiVersion !== expected)
    throw badRequest(
      `the API version in the data (${String(body.apiVersion)}) does not match the expected API version (${expected})`,
    );
  if (body.kind !== r.kind)
    throw badRequest(
      `the kind in the data (${String(body.kind)}) does not match the expected kind (${r.kind})`,
    );
  if (body.metadata === undefined) body.metadata = {};
  if (!isPlainObject(body.metadata)) throw badRequest('metadata must be an object');
  return body as KubeObject;
}

/** Drops or reports fields the schema does not know, per the fieldValidation directive. */
function pruneUnknown(r: ResourceInfo, version: string, obj: KubeObject, ctx: WriteContext): void {
  const unknown = unknownMetadataFields(obj.metadata as Record<string, unknown>);
  for (const f of unknown) delete (obj.metadata as Record<string, unknown>)[f.slice('metadata.'.length)];
  const schema = schemaFor(r, version);
  if (schema) unknown.push(...prune(schema, obj));
  if (unknown.length === 0) return;
  const msgs = unknown.map((f) => `unknown field "${f}"`);
  if (ctx.fieldValidation === 'Strict') throw badRequest(`strict decoding error: ${msgs.join(', ')}`);
  if (ctx.fieldValidation === 'Warn') ctx.warnings.push(...msgs);
}

function validateObject(
  r: ResourceInfo,
  version: string,
  obj: KubeObject,
  ctx: WriteContext,
  old?: KubeObject,
): void {
  const errors: FieldError[] = validateMetadata(obj.metadata, r.kind === 'Namespace' ? 'label' : 'subdomain');
  const schema = schemaFor(r, version);
  if (schema && r.custom) {
    applyDefaults(schema, obj);
    errors.push(...validate(schema, obj));
    errors.push(...ruleErrors(schema, obj, old, errors, ctx));
  }
  if (r.kind === 'CustomResourceDefinition' && !r.custom) errors.push(...validateCrd(obj));
  if (errors.length) throw invalid(r.kind, r.group, obj.metadata.name ?? '', errors);
}

/** apiextensions' hasBlockingErr: these schema errors keep the CEL rules from running. */
const BLOCKING = new Set([
  'FieldValueNotSupported',
  'FieldValueRequired',
  'FieldValueTooLong',
  'FieldValueTooMany',
  'FieldValueTypeInvalid',
]);

function ruleErrors(
  schema: JSONSchemaProps,
  obj: KubeObject,
  old: KubeObject | undefined,
  schemaErrors: FieldError[],
  ctx: WriteContext,
): FieldError[] {
  if (!schemaHasRules(schema)) return [];
  if (schemaErrors.some((e) => BLOCKING.has(e.reason)))
    return [
      {
        reason: 'FieldValueInvalid',
        field: '<nil>',
        message:
          'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
      },
    ];
  const outcome = validateRules(schema, obj, old);
  ctx.warnings.push(...outcome.warnings);
  return outcome.errors;
}

/** Secret.stringData is write-only: it lands base64-encoded in data. */
function foldStringData(obj: KubeObject): void {
  if (obj.kind !== 'Secret') return;
  if (!obj.type) obj.type = 'Opaque';
  if (!isPlainObject(obj.stringData)) return;
  const data = (isPlainObject(obj.data) ? obj.data : {}) as Record<string, string>;
  for (const [k, v] of Object.entries(obj.stringData)) data[k] = Buffer.from(String(v)).toString('base64');
  obj.data = data;
  delete obj.stringData;
}

// What moves metadata.generation: everything but metadata, and but status when status is a
// subresource of its own (without one, kube-apiserver counts a status change as a new generation).
const specOf = (o: KubeObject, statusIsSubresource: boolean) => {
  const { metadata: _m, status, ...rest } = o;
  return statusIsSubresource ? rest : { ...rest, status };
};

/** Prepares a new object for storage: names, defaults, validation, bookkeeping fields. */
export function admitCreate(
  r: ResourceInfo,
  version: string,
  namespace: string,
  body: unknown,
  ctx: WriteContext,
): KubeObject {
  const obj = checkEnvelope(r, version, body);
  const meta = obj.metadata;
  if (r.namespaced) {
    if (meta.namespace && meta.namespace !== namespace)
      throw badRequest(
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    meta.namespace = namespace;
  } else delete meta.namespace;
  if (!meta.name) {
    if (!meta.generateName)
      throw invalid(r.kind, r.group, '', [
        {
          reason: 'FieldValueRequired',
          field: 'metadata.name',
          message: 'Required value: name or generateName is required',
        },
      ]);
    meta.name = `${meta.generateName}${randomSuffix()}`;
  }
  pruneUnknown(r, version, obj, ctx);
  foldStringData(obj);
  if (r.hasStatus && r.custom) delete obj.status;
  if (r.kind === 'Namespace' && !r.custom) {
    obj.spec = { finalizers: ['kubernetes'] };
    obj.status = { phase: 'Active' };
  }
  validateObject(r, version, obj, ctx);
  meta.uid = randomUUID();
  meta.creationTimestamp = nowIso();
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  delete meta.resourceVersion;
  if (r.tracksGeneration) meta.generation = 1;
  else delete meta.generation;
  obj.apiVersion = apiVersionOf(r, r.version);
  obj.metadata.managedFields = updateManagedFields(
    undefined,
    obj,
    ctx.manager,
    'Update',
    nowIso(),
    schemaFor(r, version),
  );
  return obj;
}

/**
 * Prepares a replacement of `old` (PUT, or the result of a PATCH). Returns undefined
 * when nothing would change, so the caller can skip the write as kube does.
 */
export function admitUpdate(
  r: ResourceInfo,
  version: string,
  old: KubeObject,
  body: unknown,
  ctx: WriteContext,
  subresource: 'status' | undefined,
): KubeObject | undefined {
  const incoming = checkEnvelope(r, version, body);
  const name = old.metadata.name!;
  if (incoming.metadata.name && incoming.metadata.name !== name)
    throw badRequest(
      `the name of the object (${incoming.metadata.name}) does not match the name on the URL (${name})`,
    );
  if (r.namespaced && incoming.metadata.namespace && incoming.metadata.namespace !== old.metadata.namespace)
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  const rv = incoming.metadata.resourceVersion;
  if (rv !== undefined && rv !== '' && rv !== old.metadata.resourceVersion)
    throw staleResourceVersion(r.plural, r.group, name);
  pruneUnknown(r, version, incoming, ctx);
  foldStringData(incoming);

  let next: KubeObject;
  if (subresource === 'status') {
    next = { ...old, status: incoming.status };
    if (incoming.status === undefined) delete next.status;
  } else {
    next = { ...incoming, metadata: { ...incoming.metadata } };
    if (r.hasStatus) {
      if (old.status === undefined) delete next.status;
      else next.status = old.status;
    }
    if (r.kind === 'Namespace' && !r.custom) next.spec = old.spec;
  }
  const meta = next.metadata;
  meta.name = name;
  if (r.namespaced) meta.namespace = old.metadata.namespace!;
  else delete meta.namespace;
  meta.uid = old.metadata.uid!;
  meta.creationTimestamp = old.metadata.creationTimestamp!;
  if (old.metadata.deletionTimestamp) {
    meta.deletionTimestamp = old.metadata.deletionTimestamp;
    meta.deletionGracePeriodSeconds = old.metadata.deletionGracePeriodSeconds ?? 0;
    const added = (meta.finalizers ?? []).filter((f) => !(old.metadata.finalizers ?? []).includes(f));
    if (added.length)
      throw invalid(r.kind, r.group, name, [
        {
          reason: 'FieldValueForbidden',
          field: 'metadata.finalizers',
          message: 'Forbidden: no new finalizers can be added if the object is being deleted',
        },
      ]);
  } else {
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
  }
  if (meta.generateName === undefined && old.metadata.generateName)
    meta.generateName = old.metadata.generateName;
  validateObject(r, version, next, ctx, old);
  if (r.tracksGeneration) {
    const changed =
      subresource !== 'status' &&
      !deepEqual(specOf(old, r.hasStatus), { ...specOf(next, r.hasStatus), apiVersion: old.apiVersion });
    meta.generation = (old.metadata.generation ?? 1) + (changed ? 1 : 0);
  } else delete meta.generation;
  meta.resourceVersion = old.metadata.resourceVersion!;
  next.apiVersion = apiVersionOf(r, r.version);
  if (
    meta.managedFields === undefined ||
    subresource === 'status' ||
    deepEqual(meta.managedFields, old.metadata.managedFields)
  ) {
    meta.managedFields = updateManagedFields(
      old,
      next,
      ctx.manager,
      'Update',
      nowIso(),
      schemaFor(r, version),
    );
  }
  if (unchanged(old, next)) return undefined;
  return next;
}

function unchanged(old: KubeObject, next: KubeObject): boolean {
  const strip = (o: KubeObject) => ({ ...o, metadata: { ...o.metadata, managedFields: undefined } });
  return deepEqual(strip(old), strip(next));
}

export function ensureNotTerminating(namespaceObj: KubeObject | undefined, namespace: string): void {
  if (namespaceObj?.metadata.deletionTimestamp)
    throw new StatusError(
      403,
      'Forbidden',
      `unable to create new content in namespace ${namespace} because it is being terminated`,
      { name: namespace, kind: 'namespaces' },
    );
}
