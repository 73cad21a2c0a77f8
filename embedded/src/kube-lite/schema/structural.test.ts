import { describe, expect, it } from 'vitest';
import type { JSONSchemaProps } from '../types.js';
import { validateStructural } from './structural.js';

const root = 'spec.versions[0].schema.openAPIV3Schema';

describe('validateStructural', () => {
  it.each<[string, JSONSchemaProps, { field: string; reason: string; message: string }[]]>([
    [
      'a structural schema',
      { type: 'object', properties: { spec: { type: 'object', additionalProperties: { type: 'string' } } } },
      [],
    ],
    [
      'a property without a type',
      { type: 'object', properties: { spec: { properties: { a: { type: 'string' } } } } },
      [
        {
          field: `${root}.properties[spec].type`,
          reason: 'FieldValueRequired',
          message: 'Required value: must not be empty for specified object fields',
        },
      ],
    ],
    [
      'int-or-string and preserve-unknown-fields need no type',
      {
        type: 'object',
        properties: {
          a: { 'x-kubernetes-int-or-string': true },
          b: { 'x-kubernetes-preserve-unknown-fields': true },
        },
      },
      [],
    ],
    [
      'properties with additionalProperties',
      {
        type: 'object',
        properties: { m: { type: 'object', properties: {}, additionalProperties: { type: 'string' } } },
      },
      [
        {
          field: `${root}.properties[m].additionalProperties`,
          reason: 'FieldValueForbidden',
          message: 'Forbidden: additionalProperties and properties are mutual exclusive',
        },
      ],
    ],
    [
      'array items without a type',
      { type: 'object', properties: { xs: { type: 'array', items: {} } } },
      [
        {
          field: `${root}.properties[xs].items.type`,
          reason: 'FieldValueRequired',
          message: 'Required value: must not be empty for specified array items',
        },
      ],
    ],
    [
      'a root that is not an object',
      { type: 'string' },
      [
        {
          field: `${root}.type`,
          reason: 'FieldValueInvalid',
          message: 'Invalid value: "string": must be object at the root',
        },
      ],
    ],
  ])('%s', (_name, schema, expected) => {
    expect(validateStructural(schema)).toEqual(expected);
  });
});
