import { describe, expect, it } from 'vitest';
import type { JSONSchemaProps, KubeObject, ManagedFieldsEntry } from '../types.js';
import { fieldSetOf, serverSideApply } from './server-side-apply.js';
import { updateManagedFields } from './managed-fields.js';
import { ApplyConflictError } from './errors.js';

const T0 = '2024-01-01T00:00:00Z';
const T1 = '2024-01-02T00:00:00Z';

const configMap = (
  data: Record<string, string>,
  extra: Partial<KubeObject['metadata']> = {},
): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'cm', namespace: 'default', ...extra },
  data,
});

const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        items: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', properties: { name: { type: 'string' }, value: { type: 'string' } } },
        },
        tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
        args: { type: 'array', items: { type: 'string' } },
        selector: {
          type: 'object',
          'x-kubernetes-map-type': 'atomic',
          additionalProperties: { type: 'string' },
        },
      },
    },
  },
};

describe('fieldSetOf', () => {
  it.each<[string, unknown, JSONSchemaProps | undefined, unknown]>([
    [
      'metadata maps are granular and server-set fields are not owned',
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'cm', uid: 'u', resourceVersion: '1', labels: { app: 'a' }, finalizers: ['f'] },
        data: { k: 'v' },
      },
      undefined,
      {
        'f:metadata': { 'f:labels': { 'f:app': {} }, 'f:finalizers': { 'v:"f"': {} } },
        'f:data': { 'f:k': {} },
      },
    ],
    [
      'map lists by key, sets by value, other lists and atomic maps whole',
      { spec: { items: [{ name: 'a', value: 'x' }], tags: ['t'], args: ['--x'], selector: { a: 'b' } } },
      schema,
      {
        'f:spec': {
          'f:items': { 'k:{"name":"a"}': { '.': {}, 'f:name': {}, 'f:value': {} } },
          'f:tags': { 'v:"t"': {} },
          'f:args': {},
          'f:selector': {},
        },
      },
    ],
    [
      'ownerReferences keyed by uid',
      { metadata: { ownerReferences: [{ uid: 'u1', name: 'o' }] } },
      undefined,
      { 'f:metadata': { 'f:ownerReferences': { 'k:{"uid":"u1"}': { '.': {}, 'f:name': {}, 'f:uid': {} } } } },
    ],
  ])('%s', (_name, obj, s, expected) => {
    expect(fieldSetOf(obj, s)).toEqual(expected);
  });
});

function apply(
  live: KubeObject | undefined,
  applied: KubeObject,
  manager: string,
  force = false,
  s?: JSONSchemaProps,
  now = T1,
) {
  return serverSideApply({ live, applied, manager, force, schema: s, now }).object;
}

function entry(
  manager: string,
  operation: 'Apply' | 'Update',
  fieldsV1: Record<string, unknown>,
  time = T0,
): ManagedFieldsEntry {
  return { manager, operation, apiVersion: 'v1', time, fieldsType: 'FieldsV1', fieldsV1 };
}

describe('serverSideApply', () => {
  it('creates an object owned by the applier', () => {
    const obj = apply(undefined, configMap({ key: 'v' }, { labels: { app: 'a' } }), 'kubectl');
    expect(obj.data).toEqual({ key: 'v' });
    expect(obj.metadata.managedFields).toEqual([
      entry(
        'kubectl',
        'Apply',
        { 'f:data': { 'f:key': {} }, 'f:metadata': { 'f:labels': { 'f:app': {} } } },
        T1,
      ),
    ]);
  });

  it.each<[string, boolean, string]>([
    ['conflicts with an updater that set a different value', false, 'conflict'],
    ['takes the field over with force', true, 'ok'],
  ])('%s', (_name, force, outcome) => {
    const live = configMap(
      { key: 'old' },
      {
        managedFields: [entry('kubectl-client-side-apply', 'Update', { 'f:data': { 'f:key': {} } })],
      },
    );
    const run = () => apply(live, configMap({ key: 'new' }), 'kubectl', force);
    if (outcome === 'conflict') {
      const error = (() => {
        try {
          run();
        } catch (e) {
          return e as ApplyConflictError;
        }
      })();
      expect(error).toBeInstanceOf(ApplyConflictError);
      expect(error?.code).toBe(409);
      expect(error?.message).toBe(
        `Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1 at ${T0}: .data.key`,
      );
      expect(error?.conflicts).toEqual([
        { manager: `"kubectl-client-side-apply" using v1 at ${T0}`, field: '.data.key' },
      ]);
    } else {
      const obj = run();
      expect(obj.data).toEqual({ key: 'new' });
      expect(obj.metadata.managedFields).toEqual([
        entry('kubectl', 'Apply', { 'f:data': { 'f:key': {} } }, T1),
      ]);
    }
  });

  it('shares a field without conflict when the applied value equals the live one', () => {
    const live = configMap(
      { key: 'same' },
      { managedFields: [entry('other', 'Update', { 'f:data': { 'f:key': {} } })] },
    );
    const obj = apply(live, configMap({ key: 'same' }), 'kubectl');
    expect(obj.metadata.managedFields?.map((e) => e.manager)).toEqual(['other', 'kubectl']);
  });

  it('lists every conflict, grouped by manager', () => {
    const live = configMap(
      { a: '1', b: '1' },
      {
        managedFields: [
          entry('zed', 'Apply', { 'f:data': { 'f:a': {} } }),
          entry('alpha', 'Update', { 'f:data': { 'f:b': {} } }, ''),
        ],
      },
    );
    expect(() => apply(live, configMap({ a: '2', b: '2' }), 'kubectl')).toThrow(
      'Apply failed with 2 conflicts: conflicts with "alpha" using v1:\n- .data.b\nconflicts with "zed":\n- .data.a',
    );
  });

  it('removes fields dropped from the applied configuration', () => {
    const first = apply(
      undefined,
      configMap({ keep: '1', drop: '2' }, { labels: { a: '1', b: '2' } }),
      'kubectl',
    );
    const second = apply(first, configMap({ keep: '1' }, { labels: { a: '1' } }), 'kubectl');
    expect(second.data).toEqual({ keep: '1' });
    expect(second.metadata.labels).toEqual({ a: '1' });
    expect(second.metadata.managedFields?.[0]?.fieldsV1).toEqual({
      'f:data': { 'f:keep': {} },
      'f:metadata': { 'f:labels': { 'f:a': {} } },
    });
  });

  it('keeps a dropped field another manager also owns', () => {
    const first = apply(undefined, configMap({ shared: '1' }), 'kubectl');
    const shared = apply(first, configMap({ shared: '1' }), 'helm');
    const { data: _data, ...withoutData } = configMap({});
    const dropped = apply(shared, withoutData as KubeObject, 'kubectl');
    expect(dropped.data).toEqual({ shared: '1' });
    expect(dropped.metadata.managedFields?.map((e) => e.manager)).toEqual(['helm']);
  });

  it('merges associative lists by key and drops items no longer applied', () => {
    const cr = (items: { name: string; value?: string }[], tags: string[]): KubeObject => ({
      apiVersion: 'example.com/v1',
      kind: 'Thing',
      metadata: { name: 't' },
      spec: { items, tags },
    });
    const first = apply(
      undefined,
      cr(
        [
          { name: 'a', value: '1' },
          { name: 'b', value: '2' },
        ],
        ['x'],
      ),
      'one',
      false,
      schema,
    );
    const second = apply(first, cr([{ name: 'c', value: '3' }], ['y']), 'two', false, schema);
    expect(second.spec).toEqual({
      items: [
        { name: 'a', value: '1' },
        { name: 'b', value: '2' },
        { name: 'c', value: '3' },
      ],
      tags: ['x', 'y'],
    });
    const third = apply(second, cr([{ name: 'a', value: '1' }], ['x']), 'one', false, schema);
    expect(third.spec).toEqual({
      items: [
        { name: 'a', value: '1' },
        { name: 'c', value: '3' },
      ],
      tags: ['x', 'y'],
    });
  });

  it('gives unmanaged live objects to before-first-apply', () => {
    expect(() => apply(configMap({ key: 'old' }), configMap({ key: 'new' }), 'kubectl')).toThrow(
      `Apply failed with 1 conflict: conflict with "before-first-apply" using v1 at ${T1}: .data.key`,
    );
  });
});

describe('updateManagedFields', () => {
  it.each<[string, KubeObject | undefined, KubeObject, ManagedFieldsEntry[]]>([
    [
      'a create owns every field',
      undefined,
      configMap({ a: '1' }),
      [entry('kubectl-create', 'Update', { 'f:data': { 'f:a': {} } }, T1)],
    ],
    [
      'an update takes changed fields from other managers',
      configMap(
        { a: '1', b: '1' },
        { managedFields: [entry('kubectl', 'Apply', { 'f:data': { 'f:a': {}, 'f:b': {} } })] },
      ),
      configMap({ a: '2', b: '1' }),
      [
        entry('kubectl', 'Apply', { 'f:data': { 'f:b': {} } }),
        entry('kubectl-create', 'Update', { 'f:data': { 'f:a': {} } }, T1),
      ],
    ],
    [
      'managers left with nothing are dropped',
      configMap({ a: '1' }, { managedFields: [entry('kubectl', 'Apply', { 'f:data': { 'f:a': {} } })] }),
      configMap({ a: '2' }),
      [entry('kubectl-create', 'Update', { 'f:data': { 'f:a': {} } }, T1)],
    ],
    [
      'an unchanged write records nothing',
      configMap({ a: '1' }, { managedFields: [entry('kubectl', 'Apply', { 'f:data': { 'f:a': {} } })] }),
      configMap({ a: '1' }),
      [entry('kubectl', 'Apply', { 'f:data': { 'f:a': {} } })],
    ],
  ])('%s', (_name, oldObj, newObj, expected) => {
    expect(updateManagedFields(oldObj, newObj, 'kubectl-create', 'Update', T1)).toEqual(expected);
  });

  it('makes a later apply conflict on fields the update changed', () => {
    const created = apply(undefined, configMap({ key: 'a' }), 'kubectl');
    const edited = { ...configMap({ key: 'b' }) };
    edited.metadata.managedFields = updateManagedFields(created, edited, 'editor', 'Update', T1);
    expect(() => apply(edited, configMap({ key: 'c' }), 'kubectl')).toThrow(
      /conflict with "editor" using v1 at .*: \.data\.key/,
    );
  });
});
