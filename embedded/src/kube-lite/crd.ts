import { checkSchemaRules, validateStructural } from './schema/index.js';
import type { FieldError, KubeObject } from './types.js';
import { deepEqual, isPlainObject, nowIso } from './util.js';

const req = (field: string): FieldError => ({
  reason: 'FieldValueRequired',
  field,
  message: 'Required value',
});
const bad = (field: string, value: unknown, why: string): FieldError => ({
  reason: 'FieldValueInvalid',
  field,
  message: `Invalid value: ${JSON.stringify(value)}: ${why}`,
});

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** The apiextensions validation kube-lite needs to serve a CRD safely. */
export function validateCrd(crd: KubeObject): FieldError[] {
  const errors: FieldError[] = [];
  const spec = crd.spec as Record<string, unknown> | undefined;
  if (!isPlainObject(spec)) return [req('spec')];
  const names = (isPlainObject(spec.names) ? spec.names : {}) as Record<string, unknown>;
  if (!spec.group) errors.push(req('spec.group'));
  else if (!String(spec.group).includes('.'))
    errors.push(bad('spec.group', spec.group, 'should be a domain with at least one dot'));
  if (!names.plural) errors.push(req('spec.names.plural'));
  else if (!DNS_LABEL.test(String(names.plural)))
    errors.push(
      bad(
        'spec.names.plural',
        names.plural,
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-'",
      ),
    );
  if (!names.kind) errors.push(req('spec.names.kind'));
  if (!['Namespaced', 'Cluster'].includes(String(spec.scope)))
    errors.push({
      reason: 'FieldValueNotSupported',
      field: 'spec.scope',
      message: `Unsupported value: ${JSON.stringify(spec.scope ?? '')}: supported values: "Cluster", "Namespaced"`,
    });
  const expected = `${String(names.plural)}.${String(spec.group)}`;
  if (names.plural && spec.group && crd.metadata.name !== expected)
    errors.push(bad('metadata.name', crd.metadata.name, `must be spec.names.plural+"."+spec.group`));
  const versions = Array.isArray(spec.versions) ? (spec.versions as Record<string, unknown>[]) : [];
  if (versions.length === 0) errors.push(req('spec.versions'));
  if (versions.filter((v) => v.storage === true).length !== 1 && versions.length > 0)
    errors.push(bad('spec.versions', '', 'must have exactly one version marked as storage version'));
  const schemaOf = (v: Record<string, unknown>) =>
    (v.schema as { openAPIV3Schema?: unknown } | undefined)?.openAPIV3Schema;
  // apiextensions validates its internal form, where a schema every version shares is lifted
  // to spec.validation: errors in it are reported there, once.
  const shared = versions.length > 0 && versions.every((v) => deepEqual(schemaOf(v), schemaOf(versions[0]!)));
  versions.forEach((v, i) => {
    if (!v.name) errors.push(req(`spec.versions[${i}].name`));
    const schema = schemaOf(v);
    if (!isPlainObject(schema)) errors.push(req(`spec.versions[${i}].schema.openAPIV3Schema`));
    else if (!shared || i === 0) {
      const at = shared ? 'spec.validation.openAPIV3Schema' : `spec.versions[${i}].schema.openAPIV3Schema`;
      errors.push(...validateStructural(schema, at));
      errors.push(...checkSchemaRules(schema, at));
    }
  });
  return errors;
}

/** The status kube-apiserver reports once a CRD is served. */
export function establishedStatus(crd: KubeObject): Record<string, unknown> {
  const spec = crd.spec as {
    names: Record<string, unknown>;
    versions: { name: string; storage?: boolean }[];
  };
  const now = nowIso();
  const condition = (type: string, reason: string, message: string) => ({
    type,
    status: 'True',
    lastTransitionTime: now,
    reason,
    message,
  });
  return {
    acceptedNames: {
      ...spec.names,
      singular: spec.names.singular ?? String(spec.names.kind).toLowerCase(),
      listKind: spec.names.listKind ?? `${String(spec.names.kind)}List`,
    },
    conditions: [
      condition('NamesAccepted', 'NoConflicts', 'no conflicts found'),
      condition('Established', 'InitialNamesAccepted', 'the initial names have been accepted'),
    ],
    storedVersions: spec.versions.filter((v) => v.storage).map((v) => v.name),
  };
}
