import type { FieldError, ObjectMeta } from './types.js';

const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

export const KNOWN_METADATA_FIELDS = new Set([
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
]);

const invalid = (field: string, value: unknown, detail: string): FieldError => ({
  reason: 'FieldValueInvalid',
  field,
  message: `Invalid value: ${JSON.stringify(value)}: ${detail}`,
});

/** kube's IsDNS1123Subdomain / IsDNS1123Label applied to a name. */
export function validateName(
  name: string,
  kind: 'subdomain' | 'label',
  field = 'metadata.name',
): FieldError[] {
  const errors: FieldError[] = [];
  const max = kind === 'label' ? 63 : 253;
  if (name.length > max) errors.push(invalid(field, name, `must be no more than ${max} characters`));
  if (!(kind === 'label' ? LABEL : SUBDOMAIN).test(name))
    errors.push(invalid(field, name, kind === 'label' ? LABEL_MSG : SUBDOMAIN_MSG));
  return errors;
}

function validateQualifiedKey(key: string, field: string): FieldError[] {
  const slash = key.lastIndexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  const errors: FieldError[] = [];
  if (prefix !== undefined && (prefix.length > 253 || !SUBDOMAIN.test(prefix)))
    errors.push(invalid(field, key, `prefix part ${SUBDOMAIN_MSG}`));
  if (name.length === 0 || name.length > 63 || !QUALIFIED_NAME.test(name))
    errors.push(
      invalid(
        field,
        key,
        "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      ),
    );
  return errors;
}

/** The metadata rules of ValidateObjectMeta that apply to every kind. */
export function validateMetadata(meta: ObjectMeta, nameKind: 'subdomain' | 'label'): FieldError[] {
  const errors: FieldError[] = [];
  if (meta.name) errors.push(...validateName(meta.name, nameKind));
  for (const [k, v] of Object.entries(meta.labels ?? {})) {
    errors.push(...validateQualifiedKey(k, 'metadata.labels'));
    if (typeof v !== 'string' || v.length > 63 || !LABEL_VALUE.test(v))
      errors.push(
        invalid(
          'metadata.labels',
          v,
          "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
        ),
      );
  }
  let annotationBytes = 0;
  for (const [k, v] of Object.entries(meta.annotations ?? {})) {
    errors.push(...validateQualifiedKey(k.toLowerCase(), 'metadata.annotations'));
    if (typeof v !== 'string') errors.push(invalid('metadata.annotations', v, 'must be a string'));
    annotationBytes += k.length + String(v).length;
  }
  if (annotationBytes > 256 * 1024)
    errors.push({
      reason: 'FieldValueTooLong',
      field: 'metadata.annotations',
      message: `Too long: must have at most ${256 * 1024} bytes`,
    });
  for (const [i, f] of (meta.finalizers ?? []).entries()) {
    if (typeof f !== 'string' || !f)
      errors.push(invalid(`metadata.finalizers[${i}]`, f, 'must be a non-empty string'));
  }
  for (const [i, o] of (meta.ownerReferences ?? []).entries()) {
    for (const key of ['apiVersion', 'kind', 'name', 'uid'] as const) {
      if (!o?.[key])
        errors.push({
          reason: 'FieldValueRequired',
          field: `metadata.ownerReferences[${i}].${key}`,
          message: 'Required value',
        });
    }
  }
  return errors;
}

/** Fields under metadata that a strict decoder would reject. */
export function unknownMetadataFields(meta: Record<string, unknown>): string[] {
  return Object.keys(meta)
    .filter((k) => !KNOWN_METADATA_FIELDS.has(k))
    .map((k) => `metadata.${k}`);
}
