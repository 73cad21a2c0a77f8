/**
 * A minimal structural-schema check for CRD openAPIV3Schema (apiextensions' NonStructural
 * condition): every node specifies a type unless it is int-or-string or preserves unknown
 * fields, and properties never combine with additionalProperties.
 */
import type { FieldError, JSONSchemaProps } from '../types.js';
import * as fe from './field-errors.js';

export function validateStructural(
  schema: JSONSchemaProps,
  rootPath = 'spec.versions[0].schema.openAPIV3Schema',
): FieldError[] {
  const errors: FieldError[] = [];
  if (schema.type !== undefined && schema.type !== 'object') {
    errors.push(fe.invalid(`${rootPath}.type`, schema.type, 'must be object at the root'));
  }
  checkNode(schema, rootPath, 'object', errors);
  return errors;
}

type NodeKind = 'object' | 'array item' | 'additionalProperties';

function checkNode(schema: JSONSchemaProps, path: string, kind: NodeKind, errors: FieldError[]): void {
  const typeless =
    schema.type === undefined &&
    !schema['x-kubernetes-int-or-string'] &&
    !schema['x-kubernetes-preserve-unknown-fields'] &&
    !schema['x-kubernetes-embedded-resource'];
  if (typeless) {
    const where =
      kind === 'object'
        ? 'specified object fields'
        : kind === 'array item'
          ? 'specified array items'
          : 'additionalProperties';
    errors.push(fe.required(`${path}.type`, `must not be empty for ${where}`));
  }
  if (schema.properties && schema.additionalProperties !== undefined) {
    errors.push(
      fe.forbidden(
        `${path}.additionalProperties`,
        'additionalProperties and properties are mutual exclusive',
      ),
    );
  }
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    checkNode(prop, `${path}.properties[${name}]`, 'object', errors);
  }
  if (schema.items) checkNode(schema.items, `${path}.items`, 'array item', errors);
  if (typeof schema.additionalProperties === 'object') {
    checkNode(schema.additionalProperties, `${path}.additionalProperties`, 'additionalProperties', errors);
  }
}
