import { describe, expect, it } from 'vitest';
import type { JSONSchemaProps } from '../types.js';
import { validate } from './validate.js';

const obj = (properties: Record<string, JSONSchemaProps>, extra: JSONSchemaProps = {}): JSONSchemaProps => ({
  type: 'object',
  properties: { spec: { type: 'object', properties, ...extra } },
});

describe('validate', () => {
  it.each<[string, JSONSchemaProps, unknown, { reason: string; field: string; message: string }[]]>([
    [
      'minimum',
      obj({ cpu: { type: 'integer', minimum: 1 } }),
      { spec: { cpu: 0 } },
      [
        {
          reason: 'FieldValueInvalid',
          field: 'spec.cpu',
          message: 'Invalid value: 0: spec.cpu in body should be greater than or equal to 1',
        },
      ],
    ],
    [
      'exclusive maximum with a float bound',
      obj({ ratio: { type: 'number', maximum: 0.5, exclusiveMaximum: true } }),
      { spec: { ratio: 0.5 } },
      [
        {
          reason: 'FieldValueInvalid',
          field: 'spec.ratio',
          message: 'Invalid value: 0.5: spec.ratio in body should be less than 0.5',
        },
      ],
    ],
    [
      'type mismatch',
      obj({ cpu: { type: 'integer' } }),
      { spec: { cpu: 'two' } },
      [
        {
          reason: 'FieldValueTypeInvalid',
          field: 'spec.cpu',
          message: 'Invalid value: "string": spec.cpu in body must be of type integer: "string"',
        },
      ],
    ],
    [
      'float where an integer is required',
      obj({ cpu: { type: 'integer' } }),
      { spec: { cpu: 1.5 } },
      [
        {
          reason: 'FieldValueTypeInvalid',
          field: 'spec.cpu',
          message: 'Invalid value: "number": spec.cpu in body must be of type integer: "number"',
        },
      ],
    ],
    [
      'null for a non-nullable field',
      obj({ name: { type: 'string' } }),
      { spec: { name: null } },
      [
        {
          reason: 'FieldValueTypeInvalid',
          field: 'spec.name',
          message: 'Invalid value: "null": spec.name in body must be of type string: "null"',
        },
      ],
    ],
    [
      'null for a nullable field',
      obj({ name: { type: 'string', nullable: true } }),
      { spec: { name: null } },
      [],
    ],
    ['integer for a number', obj({ n: { type: 'number' } }), { spec: { n: 3 } }, []],
    [
      'int-or-string',
      obj({ port: { 'x-kubernetes-int-or-string': true } }),
      { spec: { port: true } },
      [
        {
          reason: 'FieldValueTypeInvalid',
          field: 'spec.port',
          message: 'Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"',
        },
      ],
    ],
    [
      'required',
      obj({ image: { type: 'string' } }, { required: ['image'] }),
      { spec: {} },
      [{ reason: 'FieldValueRequired', field: 'spec.image', message: 'Required value' }],
    ],
    [
      'required at the root',
      { type: 'object', required: ['spec'], properties: { spec: { type: 'object' } } },
      {},
      [{ reason: 'FieldValueRequired', field: 'spec', message: 'Required value' }],
    ],
    [
      'enum',
      obj({ mode: { type: 'string', enum: ['a', 'b'] } }),
      { spec: { mode: 'x' } },
      [
        {
          reason: 'FieldValueNotSupported',
          field: 'spec.mode',
          message: 'Unsupported value: "x": supported values: "a", "b"',
        },
      ],
    ],
    [
      'enum of numbers',
      obj({ n: { type: 'integer', enum: [1, 2] } }),
      { spec: { n: 3 } },
      [
        {
          reason: 'FieldValueNotSupported',
          field: 'spec.n',
          message: 'Unsupported value: 3: supported values: "1", "2"',
        },
      ],
    ],
    [
      'pattern',
      obj({ name: { type: 'string', pattern: '^[a-z]+$' } }),
      { spec: { name: 'A1' } },
      [
        {
          reason: 'FieldValueInvalid',
          field: 'spec.name',
          message: `Invalid value: "A1": spec.name in body should match '^[a-z]+$'`,
        },
      ],
    ],
    [
      'maxLength counts runes',
      obj({ name: { type: 'string', maxLength: 2 } }),
      { spec: { name: '😀😀' } },
      [],
    ],
    [
      'maxLength',
      obj({ name: { type: 'string', maxLength: 2 } }),
      { spec: { name: 'abc' } },
      [
        {
          reason: 'FieldValueTooLong',
          field: 'spec.name',
          message: 'Too long: may not be more than 2 bytes',
        },
      ],
    ],
    [
      'minLength',
      obj({ name: { type: 'string', minLength: 3 } }),
      { spec: { name: 'ab' } },
      [
        {
          reason: 'FieldValueInvalid',
          field: 'spec.name',
          message: 'Invalid value: "ab": spec.name in body should be at least 3 chars long',
        },
      ],
    ],
    [
      'multipleOf',
      obj({ n: { type: 'integer', multipleOf: 5 } }),
      { spec: { n: 7 } },
      [
        {
          reason: 'FieldValueInvalid',
          field: 'spec.n',
          message: 'Invalid value: 7: spec.n in body should be a multiple of 5',
        },
      ],
    ],
    ['multipleOf below one', obj({ n: { type: 'number', multipleOf: 0.1 } }), { spec: { n: 0.3 } }, []],
    [
      'maxItems',
      obj({ xs: { type: 'array', maxItems: 1, items: { type: 'string' } } }),
      { spec: { xs: ['a', 'b'] } },
      [{ reason: 'FieldValueTooMany', field: 'spec.xs', message: 'Too many: 2: must have at most 1 item' }],
    ],
    [
      'minItems',
      obj({ xs: { type: 'array', minItems: 1, items: { type: 'string' } } }),
      { spec: { xs: [] } },
      [
        {
          reason: 'FieldValueInvalid',
          field: 'spec.xs',
          message: 'Invalid value: 0: spec.xs in body should have at least 1 items',
        },
      ],
    ],
    [
      'uniqueItems',
      obj({ xs: { type: 'array', uniqueItems: true, items: { type: 'object' } } }),
      { spec: { xs: [{ a: 1 }, { a: 1 }] } },
      [
        {
          reason: 'FieldValueInvalid',
          field: 'spec.xs',
          message: `Invalid value: "": spec.xs in body shouldn't contain duplicates`,
        },
      ],
    ],
    [
      'item paths',
      obj({
        xs: { type: 'array', items: { type: 'object', properties: { n: { type: 'integer', maximum: 3 } } } },
      }),
      { spec: { xs: [{ n: 1 }, { n: 4 }] } },
      [
        {
          reason: 'FieldValueInvalid',
          field: 'spec.xs[1].n',
          message: 'Invalid value: 4: spec.xs[1].n in body should be less than or equal to 3',
        },
      ],
    ],
    [
      'maxProperties',
      obj({ m: { type: 'object', maxProperties: 1, additionalProperties: { type: 'string' } } }),
      { spec: { m: { a: 'x', b: 'y' } } },
      [{ reason: 'FieldValueTooMany', field: 'spec.m', message: 'Too many: 2: must have at most 1 item' }],
    ],
    [
      'minProperties',
      obj({ m: { type: 'object', minProperties: 1, additionalProperties: { type: 'string' } } }),
      { spec: { m: {} } },
      [
        {
          reason: 'FieldValueInvalid',
          field: 'spec.m',
          message: 'Invalid value: 0: spec.m in body should have at least 1 properties',
        },
      ],
    ],
    [
      'additionalProperties values',
      obj({ m: { type: 'object', additionalProperties: { type: 'string' } } }),
      { spec: { m: { a: 1 } } },
      [
        {
          reason: 'FieldValueTypeInvalid',
          field: 'spec.m.a',
          message: 'Invalid value: "integer": spec.m.a in body must be of type string: "integer"',
        },
      ],
    ],
    [
      'date-time format',
      obj({ at: { type: 'string', format: 'date-time' } }),
      { spec: { at: 'yesterday' } },
      [
        {
          reason: 'FieldValueTypeInvalid',
          field: 'spec.at',
          message: 'Invalid value: "yesterday": spec.at in body must be of type date-time: "yesterday"',
        },
      ],
    ],
    [
      'valid date-time',
      obj({ at: { type: 'string', format: 'date-time' } }),
      { spec: { at: '2024-02-29T10:00:00.5Z' } },
      [],
    ],
    [
      'set list duplicates',
      obj({ xs: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } } }),
      { spec: { xs: ['a', 'b', 'a', 'a'] } },
      [{ reason: 'FieldValueDuplicate', field: 'spec.xs[2]', message: 'Duplicate value: "a"' }],
    ],
    [
      'map list duplicates',
      obj({
        xs: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', properties: { name: { type: 'string' }, v: { type: 'integer' } } },
        },
      }),
      {
        spec: {
          xs: [
            { name: 'a', v: 1 },
            { name: 'a', v: 2 },
          ],
        },
      },
      [{ reason: 'FieldValueDuplicate', field: 'spec.xs[1]', message: 'Duplicate value: {"name":"a"}' }],
    ],
    [
      'anyOf',
      obj({
        v: {
          'x-kubernetes-int-or-string': true,
          anyOf: [{ type: 'integer' }, { type: 'string', pattern: '^\\d+%$' }],
        },
      }),
      { spec: { v: '5' } },
      [
        {
          reason: 'FieldValueInvalid',
          field: '<nil>',
          message: 'Invalid value: "": "spec.v" must validate at least one schema (anyOf)',
        },
        {
          reason: 'FieldValueTypeInvalid',
          field: 'spec.v',
          message: 'Invalid value: "string": spec.v in body must be of type integer: "string"',
        },
      ],
    ],
    [
      'not',
      obj({ v: { type: 'string', not: { enum: ['forbidden'] } } }),
      { spec: { v: 'forbidden' } },
      [
        {
          reason: 'FieldValueInvalid',
          field: '<nil>',
          message: 'Invalid value: "": "spec.v" must not validate the schema (not)',
        },
      ],
    ],
  ])('%s', (_name, schema, value, expected) => {
    expect(validate(schema, value)).toEqual(expected);
  });

  it.each([
    ['date', '2023-02-29', false],
    ['date', '2024-02-29', true],
    ['byte', 'aGVsbG8=', true],
    ['byte', 'not base64!', false],
    ['uri', 'https://example.com/x', true],
    ['uri', 'no scheme', false],
    ['email', 'a@b.c', true],
    ['hostname', 'a-b.example.com', true],
    ['hostname', '-bad', false],
    ['ipv4', '10.0.0.1', true],
    ['ipv4', '10.0.0.256', false],
    ['ipv6', '::1', true],
    ['uuid', '123e4567-e89b-12d3-a456-426614174000', true],
    ['uuid', '123e4567', false],
    ['duration', '1h30m', true],
    ['duration', '3 days', true],
    ['duration', 'soon', false],
    ['int32', '2147483648', false],
    ['int64', '2147483648', true],
  ])('format %s accepts %j: %s', (format, value, ok) => {
    const errors = validate({ type: 'string', format }, value);
    expect(errors.length === 0).toBe(ok);
  });

  it('range-checks int32 integers', () => {
    expect(validate({ type: 'integer', format: 'int32' }, 2 ** 31)).toHaveLength(1);
    expect(validate({ type: 'integer', format: 'int32' }, 2 ** 31 - 1)).toEqual([]);
  });

  it.each([
    ['\\Aabc\\z', 'abc', true],
    ['^[[:alpha:]]+$', 'abc', true],
    ['^[[:digit:]]+$', 'abc', false],
    ['(?i)^abc$', 'ABC', true],
    ['^(?P<x>a)\\-b$', 'a-b', true],
    ['^\\pL+$', 'héllo', true],
  ])('RE2 pattern %s on %s matches: %s', (pattern, value, ok) => {
    expect(validate({ type: 'string', pattern }, value).length === 0).toBe(ok);
  });

  it('prefixes rootPath', () => {
    const errors = validate(
      { type: 'object', properties: { n: { type: 'integer', minimum: 1 } } },
      { n: 0 },
      'spec',
    );
    expect(errors[0]?.field).toBe('spec.n');
  });
});
