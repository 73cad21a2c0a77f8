import { describe, expect, it } from 'vitest';
import type { JSONSchemaProps, ValidationRule } from '../../types.js';
import { checkSchemaRules, resolveFieldPath, rulesOf } from './compile.js';

const ROOT = 'spec.versions[0].schema.openAPIV3Schema';

const schemaWith = (rules: ValidationRule[], extra: Partial<JSONSchemaProps> = {}): JSONSchemaProps => ({
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      'x-kubernetes-validations': rules,
      properties: {
        a: { type: 'integer' },
        m: { type: 'object', additionalProperties: { type: 'string' } },
        list: { type: 'array', items: { type: 'string' } },
      },
      ...extra,
    },
  },
});

const at = (i: number, field: string) => `${ROOT}.properties[spec].x-kubernetes-validations[${i}].${field}`;

describe('checkSchemaRules', () => {
  it('accepts rules that compile and caches their programs on the schema node', () => {
    const schema = schemaWith([{ rule: 'self.a > 0', messageExpression: "'a is ' + string(self.a)" }]);
    expect(checkSchemaRules(schema, ROOT)).toEqual([]);
    const spec = schema.properties!.spec!;
    expect(rulesOf(spec)).toBe(rulesOf(spec));
    expect(rulesOf(spec)[0]!.program).toBeDefined();
  });

  it.each([
    [{ rule: '' }, at(0, 'rule'), 'FieldValueRequired', 'Required value: rule is not specified'],
    [
      { rule: 'true', message: ' ' },
      at(0, 'message'),
      'FieldValueInvalid',
      'Invalid value: " ": message must be non-empty if specified',
    ],
    [
      { rule: 'true', message: 'a\nb' },
      at(0, 'message'),
      'FieldValueInvalid',
      'Invalid value: "a\\nb": message must not contain line breaks',
    ],
    [
      { rule: 'true ||\nfalse' },
      at(0, 'message'),
      'FieldValueRequired',
      'Required value: message must be specified if rule contains line breaks',
    ],
    [
      { rule: 'true', fieldPath: '.nope' },
      at(0, 'fieldPath'),
      'FieldValueInvalid',
      'Invalid value: ".nope": fieldPath must be a valid path',
    ],
    [
      { rule: 'true', reason: 'Nope' },
      at(0, 'reason'),
      'FieldValueNotSupported',
      'Unsupported value: "Nope": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"',
    ],
    [
      { rule: 'self.a > 0', optionalOldSelf: true },
      at(0, 'optionalOldSelf'),
      'FieldValueInvalid',
      'Invalid value: true: may not be set if oldSelf is not used in rule',
    ],
  ] as [ValidationRule, string, string, string][])('%o is refused', (rule, field, reason, message) => {
    expect(checkSchemaRules(schemaWith([rule]), ROOT)).toEqual([{ field, reason, message }]);
  });

  it.each([
    ['self.a >', /compilation failed: ERROR: <input>:1:9: /],
    ['self.a', null],
    ["'text'", /: cel expression must evaluate to a bool$/],
    ['self.nosuchfn()', /compilation failed: ERROR: <input>:1:1: found no matching overload/],
  ])('rule %s', (rule, message) => {
    const errors = checkSchemaRules(schemaWith([{ rule }]), ROOT);
    if (message === null) return expect(errors).toEqual([]);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.field).toBe(at(0, 'rule'));
    expect(errors[0]!.message).toMatch(
      new RegExp(
        `^Invalid value: apiextensions\\.ValidationRule\\{Rule:${JSON.stringify(rule).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}, `,
      ),
    );
    expect(errors[0]!.message).toMatch(message);
  });

  it('refuses oldSelf inside the items of a list that is not a map', () => {
    const schema = schemaWith([], {
      properties: {
        list: {
          type: 'array',
          items: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] },
        },
      },
    });
    expect(checkSchemaRules(schema, ROOT)).toEqual([
      {
        field: `${ROOT}.properties[spec].properties[list].items.x-kubernetes-validations[0].rule`,
        reason: 'FieldValueInvalid',
        message: `Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within ${ROOT}.properties[spec].properties[list].items`,
      },
    ]);
  });
});

describe('resolveFieldPath', () => {
  const spec = schemaWith([]).properties!.spec!;
  it.each([
    ['.a', 'a'],
    ["['a']", 'a'],
    ['.m.key', 'm[key]'],
    [".m['dotted.key']", 'm[dotted.key]'],
    ['.nope', undefined],
    ['.list[0]', undefined],
    ['a', undefined],
  ])('%s → %s', (path, expected) => {
    expect(resolveFieldPath(path, spec)).toBe(expected);
  });
});
