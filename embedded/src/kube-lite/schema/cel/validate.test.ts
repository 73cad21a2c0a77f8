import { describe, expect, it } from 'vitest';
import type { JSONSchemaProps, ValidationRule } from '../../types.js';
import { validateRules } from './validate.js';

/** A resource schema whose spec carries `rules` and the fields they read. */
function resourceSchema(rules: ValidationRule[], spec: Partial<JSONSchemaProps> = {}): JSONSchemaProps {
  return {
    type: 'object',
    properties: {
      metadata: { type: 'object' },
      spec: {
        type: 'object',
        'x-kubernetes-validations': rules,
        properties: {
          a: { type: 'integer' },
          b: { type: 'integer' },
          ratio: { type: 'number' },
          name: { type: 'string' },
          labels: { type: 'object', additionalProperties: { type: 'string' } },
          ...spec.properties,
        },
      },
    },
  };
}

const obj = (spec: Record<string, unknown>, name = 'x') => ({
  apiVersion: 'v1',
  kind: 'K',
  metadata: { name },
  spec,
});

describe('validateRules', () => {
  it.each([
    [
      { rule: 'self.a < self.b' },
      { a: 2, b: 1 },
      'spec',
      'FieldValueInvalid',
      'Invalid value: "object": failed rule: self.a < self.b',
    ],
    [
      { rule: 'self.a < self.b', message: ' a below b ' },
      { a: 2, b: 1 },
      'spec',
      'FieldValueInvalid',
      'Invalid value: "object": a below b',
    ],
    [
      { rule: 'self.a < self.b', fieldPath: '.a' },
      { a: 2, b: 1 },
      'spec.a',
      'FieldValueInvalid',
      'Invalid value: "object": failed rule: self.a < self.b',
    ],
    [
      { rule: 'false', fieldPath: ".labels['x.y']" },
      {},
      'spec.labels[x.y]',
      'FieldValueInvalid',
      'Invalid value: "object": failed rule: false',
    ],
    [
      { rule: 'false', reason: 'FieldValueForbidden', message: 'no' },
      {},
      'spec',
      'FieldValueForbidden',
      'Forbidden: no',
    ],
    [
      { rule: 'false', reason: 'FieldValueRequired', message: 'need' },
      {},
      'spec',
      'FieldValueRequired',
      'Required value: need',
    ],
    [
      { rule: 'false', reason: 'FieldValueDuplicate', message: 'dup' },
      {},
      'spec',
      'FieldValueDuplicate',
      'Duplicate value: "object"',
    ],
    [
      { rule: 'false', messageExpression: "'a is ' + string(self.a)" },
      { a: 7 },
      'spec',
      'FieldValueInvalid',
      'Invalid value: "object": a is 7',
    ],
    // A messageExpression that fails or gives an empty string falls back to the message.
    [
      { rule: 'false', message: 'fallback', messageExpression: 'self.missing' },
      {},
      'spec',
      'FieldValueInvalid',
      'Invalid value: "object": fallback',
    ],
    [
      { rule: 'false', message: 'fallback', messageExpression: "' '" },
      {},
      'spec',
      'FieldValueInvalid',
      'Invalid value: "object": fallback',
    ],
    [
      { rule: 'self.missing == 1' },
      {},
      'spec',
      'FieldValueInvalid',
      'Invalid value: "object": no such key: missing evaluating rule: self.missing == 1',
    ],
    [
      { rule: 'self.a / self.b > 0' },
      { a: 1, b: 0 },
      'spec',
      'FieldValueInvalid',
      'Invalid value: "object": division by zero evaluating rule: self.a / self.b > 0',
    ],
    [
      { rule: 'self.ratio > 0.5' },
      { ratio: 0.25 },
      'spec',
      'FieldValueInvalid',
      'Invalid value: "object": failed rule: self.ratio > 0.5',
    ],
  ] as [ValidationRule, Record<string, unknown>, string, string, string][])(
    '%o',
    (rule, spec, field, reason, message) => {
      const out = validateRules(resourceSchema([rule]), obj(spec));
      expect(out.errors).toEqual([{ field, reason, message }]);
    },
  );

  it('passes when every rule holds, with ints as int and numbers as double', () => {
    const rules = [
      { rule: 'self.a + 1 == 3' },
      { rule: 'self.ratio * 2.0 == 1.0' },
      { rule: "self.name.startsWith('n')" },
    ];
    expect(validateRules(resourceSchema(rules), obj({ a: 2, ratio: 0.5, name: 'n1' })).errors).toEqual([]);
  });

  it('shows only name and generateName of metadata to rules at the root', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      'x-kubernetes-validations': [
        { rule: "self.metadata.name == 'x' && !has(self.metadata.labels) && self.kind == 'K'" },
      ],
      properties: { metadata: { type: 'object' } },
    };
    const o = { ...obj({}), metadata: { name: 'x', labels: { a: 'b' } } };
    expect(validateRules(schema, o).errors).toEqual([]);
  });

  it('runs transition rules only where an old value correlates', () => {
    const schema = resourceSchema([], {
      properties: {
        name: {
          type: 'string',
          'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'immutable' }],
        },
        byKey: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['k'],
          items: {
            type: 'object',
            properties: { k: { type: 'string' }, v: { type: 'integer' } },
            'x-kubernetes-validations': [{ rule: 'self.v >= oldSelf.v', message: 'v may only grow' }],
          },
        },
      },
    });
    expect(validateRules(schema, obj({ name: 'a' })).errors).toEqual([]);
    const old = obj({
      name: 'a',
      byKey: [
        { k: 'p', v: 2 },
        { k: 'q', v: 1 },
      ],
    });
    const next = obj({
      name: 'b',
      byKey: [
        { k: 'q', v: 0 },
        { k: 'p', v: 3 },
        { k: 'r', v: 0 },
      ],
    });
    expect(validateRules(schema, next, old).errors.map((e) => `${e.field}: ${e.message}`)).toEqual([
      'spec.name: Invalid value: "string": immutable',
      'spec.byKey[0]: Invalid value: "object": v may only grow',
    ]);
  });

  it('ratchets failures of values an update left unchanged into warnings', () => {
    const schema = resourceSchema([], {
      properties: {
        name: {
          type: 'string',
          'x-kubernetes-validations': [{ rule: "self.startsWith('n')", message: 'n first' }],
        },
        a: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self > 0', message: 'positive' }] },
      },
    });
    const out = validateRules(schema, obj({ name: 'bad', a: -1 }), obj({ name: 'bad', a: 5 }));
    expect(out.errors).toEqual([
      { field: 'spec.a', reason: 'FieldValueInvalid', message: 'Invalid value: "integer": positive' },
    ]);
    expect(out.warnings).toEqual(['spec.name: Invalid value: "string": n first']);
  });

  it('stops at the per-call cost limit and at the request budget', () => {
    const heavy = { rule: 'self.labels.all(k, self.labels.all(j, k.size() >= 0))', message: 'heavy' };
    const labels = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`k${i}`, 'v']));
    const perCall = validateRules(resourceSchema([heavy, { rule: 'false' }]), obj({ labels }), undefined, {
      perCall: 1_000,
      budget: 1_000_000,
    });
    expect(perCall.errors).toEqual([
      {
        field: 'spec',
        reason: 'FieldValueInvalid',
        message:
          'Invalid value: "object": \'operation cancelled: actual cost limit exceeded\': no further validation rules will be run due to call cost exceeds limit for rule: heavy',
      },
    ]);
    const budget = validateRules(resourceSchema([heavy]), obj({ labels }), undefined, {
      perCall: 1_000_000,
      budget: 1_000,
    });
    expect(budget.errors[0]!.message).toBe(
      'Invalid value: "object": validation failed due to running out of cost budget, no further validation rules will be run',
    );
  });

  it('leaves null values and schemas without rules alone', () => {
    const schema = resourceSchema([], {
      properties: { name: { type: 'string', 'x-kubernetes-validations': [{ rule: 'false' }] } },
    });
    expect(validateRules(schema, obj({ name: null })).errors).toEqual([]);
    expect(validateRules({ type: 'object' }, obj({ a: 1 }))).toEqual({ errors: [], warnings: [] });
  });
});
