import { describe, expect, it } from 'vitest';
import type { JSONSchemaProps } from '../types.js';
import { applyDefaults } from './defaults.js';
import { prune, unknownFieldMessage } from './prune.js';

const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer', default: 1 },
        policy: {
          type: 'object',
          default: {},
          properties: {
            mode: { type: 'string', default: 'Always' },
            tags: { type: 'array', items: { type: 'string' } },
          },
        },
        ports: {
          type: 'array',
          items: {
            type: 'object',
            properties: { name: { type: 'string' }, protocol: { type: 'string', default: 'TCP' } },
          },
        },
        env: {
          type: 'object',
          additionalProperties: { type: 'object', properties: { v: { type: 'string', default: 'x' } } },
        },
        opt: { type: 'object', properties: { nullable: { type: 'string', nullable: true, default: 'd' } } },
        raw: {
          type: 'object',
          'x-kubernetes-preserve-unknown-fields': true,
          properties: { known: { type: 'object' } },
        },
        embedded: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          properties: { spec: { type: 'object' } },
        },
      },
    },
  },
};

describe('applyDefaults', () => {
  it.each<[string, unknown, unknown]>([
    [
      'absent fields and nested defaults inside a defaulted value',
      { spec: {} },
      { spec: { replicas: 1, policy: { mode: 'Always' } } },
    ],
    [
      'null for a non-nullable field',
      { spec: { replicas: null } },
      { spec: { replicas: 1, policy: { mode: 'Always' } } },
    ],
    [
      'null kept for a nullable field',
      { spec: { opt: { nullable: null } } },
      { spec: { opt: { nullable: null }, replicas: 1, policy: { mode: 'Always' } } },
    ],
    [
      'absent nullable field defaulted',
      { spec: { opt: {} } },
      { spec: { opt: { nullable: 'd' }, replicas: 1, policy: { mode: 'Always' } } },
    ],
    [
      'array items',
      { spec: { ports: [{ name: 'a' }] } },
      { spec: { replicas: 1, policy: { mode: 'Always' }, ports: [{ name: 'a', protocol: 'TCP' }] } },
    ],
    [
      'additionalProperties values',
      { spec: { env: { A: {} } } },
      { spec: { replicas: 1, policy: { mode: 'Always' }, env: { A: { v: 'x' } } } },
    ],
    [
      'existing values win',
      { spec: { replicas: 3, policy: { mode: 'Never' } } },
      { spec: { replicas: 3, policy: { mode: 'Never' } } },
    ],
  ])('%s', (_name, input, expected) => {
    applyDefaults(schema, input);
    expect(input).toEqual(expected);
  });

  it('copies defaults instead of sharing them', () => {
    const a = { spec: {} } as { spec: { policy?: { mode: string } } };
    applyDefaults(schema, a);
    a.spec.policy!.mode = 'changed';
    const b = { spec: {} } as { spec: { policy?: { mode: string } } };
    applyDefaults(schema, b);
    expect(b.spec.policy!.mode).toBe('Always');
  });
});

describe('prune', () => {
  it.each<[string, unknown, unknown, string[]]>([
    [
      'unknown fields at any depth',
      { spec: { foo: 1, replicas: 2 }, extra: true },
      { spec: { replicas: 2 } },
      ['spec.foo', 'extra'],
    ],
    [
      'inside list items',
      { spec: { ports: [{ name: 'a', bar: 1 }] } },
      { spec: { ports: [{ name: 'a' }] } },
      ['spec.ports[0].bar'],
    ],
    [
      'root type and metadata kept',
      { apiVersion: 'v1', kind: 'K', metadata: { name: 'n', x: 1 } },
      { apiVersion: 'v1', kind: 'K', metadata: { name: 'n', x: 1 } },
      [],
    ],
    [
      'preserve-unknown-fields keeps unknown but prunes known',
      { spec: { raw: { anything: { deep: 1 }, known: {} } } },
      { spec: { raw: { anything: { deep: 1 }, known: {} } } },
      [],
    ],
    [
      'embedded resources keep apiVersion, kind and metadata',
      { spec: { embedded: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: {}, junk: 1 } } },
      { spec: { embedded: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: {} } } },
      ['spec.embedded.junk'],
    ],
    [
      'map values',
      { spec: { env: { A: { v: 'x', w: 1 } } } },
      { spec: { env: { A: { v: 'x' } } } },
      ['spec.env.A.w'],
    ],
  ])('%s', (_name, input, expected, removed) => {
    expect(prune(schema, input)).toEqual(removed);
    expect(input).toEqual(expected);
  });

  it('words strict-mode rejections like kube', () => {
    expect(unknownFieldMessage('spec.foo')).toBe('unknown field "spec.foo"');
  });
});
