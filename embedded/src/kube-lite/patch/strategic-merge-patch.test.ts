import { describe, expect, it } from 'vitest';
import { applyStrategicMergePatch, type PatchMeta } from './strategic-merge-patch.js';
import { CORE_PATCH_META } from './core-patch-meta.js';
import { PatchError } from './errors.js';

const meta: PatchMeta = {
  ...CORE_PATCH_META.ConfigMap,
  'spec.containers': { strategy: 'merge', mergeKey: 'name' },
  'spec.containers.ports': { strategy: 'merge', mergeKey: 'containerPort' },
  'spec.tags': { strategy: 'merge' },
  'spec.strategy': { strategy: 'retainKeys' },
};

const live = {
  metadata: {
    name: 'x',
    labels: { a: '1', b: '2' },
    finalizers: ['f1'],
    ownerReferences: [{ uid: 'u1', name: 'o1' }],
  },
  spec: {
    containers: [
      { name: 'app', image: 'app:1', ports: [{ containerPort: 80 }] },
      { name: 'side', image: 'side:1' },
    ],
    tags: ['x', 'y'],
    args: ['--a'],
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } },
  },
};

describe('applyStrategicMergePatch', () => {
  it.each<[string, unknown, unknown]>([
    [
      'null deletes a map key',
      { metadata: { labels: { a: null, c: '3' } } },
      { metadata: { labels: { b: '2', c: '3' } } },
    ],
    [
      'finalizers merge as a set',
      { metadata: { finalizers: ['f2', 'f1'] } },
      { metadata: { finalizers: ['f1', 'f2'] } },
    ],
    [
      'ownerReferences merge by uid',
      {
        metadata: {
          ownerReferences: [
            { uid: 'u1', controller: true },
            { uid: 'u2', name: 'o2' },
          ],
        },
      },
      {
        metadata: {
          ownerReferences: [
            { uid: 'u1', name: 'o1', controller: true },
            { uid: 'u2', name: 'o2' },
          ],
        },
      },
    ],
    [
      'merge-key lists merge by key, recursively',
      { spec: { containers: [{ name: 'app', image: 'app:2', ports: [{ containerPort: 443 }] }] } },
      {
        spec: {
          containers: [
            { name: 'app', image: 'app:2', ports: [{ containerPort: 80 }, { containerPort: 443 }] },
            { name: 'side', image: 'side:1' },
          ],
        },
      },
    ],
    [
      '$patch: delete removes a list item',
      { spec: { containers: [{ name: 'side', $patch: 'delete' }] } },
      { spec: { containers: [live.spec.containers[0]] } },
    ],
    [
      '$patch: replace on a list',
      { spec: { tags: [{ $patch: 'replace' }, 'z'] } },
      { spec: { tags: ['z'] } },
    ],
    [
      '$patch: replace on a map',
      { spec: { strategy: { $patch: 'replace', type: 'Recreate' } } },
      { spec: { strategy: { type: 'Recreate' } } },
    ],
    ['lists without a strategy are replaced', { spec: { args: ['--b'] } }, { spec: { args: ['--b'] } }],
    [
      '$deleteFromPrimitiveList',
      { spec: { '$deleteFromPrimitiveList/tags': ['x'] } },
      { spec: { tags: ['y'] } },
    ],
    [
      '$retainKeys clears fields not retained',
      { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } },
      { spec: { strategy: { type: 'Recreate' } } },
    ],
    [
      "kubectl's $setElementOrder reorders and is not stored",
      {
        spec: {
          '$setElementOrder/containers': [{ name: 'side' }, { name: 'app' }, { name: 'new' }],
          containers: [{ name: 'new', image: 'new:1' }],
        },
      },
      {
        spec: {
          containers: [live.spec.containers[1], live.spec.containers[0], { name: 'new', image: 'new:1' }],
        },
      },
    ],
    [
      '$setElementOrder on primitives',
      { spec: { '$setElementOrder/tags': ['y', 'x'] } },
      { spec: { tags: ['y', 'x'] } },
    ],
  ])('%s', (_name, patch, expected) => {
    const before = structuredClone(live);
    const result = applyStrategicMergePatch(live, patch, meta);
    expect(result).toMatchObject(expected as object);
    expect(JSON.stringify(result)).not.toContain('$');
    expect(live).toEqual(before);
  });

  it('deleting a map removes the key entirely', () => {
    const result = applyStrategicMergePatch(live, { spec: { strategy: { $patch: 'delete' } } }, meta);
    expect('strategy' in result.spec).toBe(false);
  });

  it('rejects an unknown $patch', () => {
    expect(() => applyStrategicMergePatch(live, { spec: { $patch: 'frob' } }, meta)).toThrow(PatchError);
  });

  it('rejects merge-list items without the merge key', () => {
    expect(() => applyStrategicMergePatch(live, { spec: { containers: [{ image: 'x' }] } }, meta)).toThrow(
      /does not contain declared merge key: name/,
    );
  });

  it('knows the core kinds', () => {
    expect(Object.keys(CORE_PATCH_META).sort()).toEqual(
      ['ConfigMap', 'Event', 'Lease', 'Namespace', 'ResourceQuota', 'Secret', 'ServiceAccount'].sort(),
    );
    expect(CORE_PATCH_META.ServiceAccount!.secrets).toEqual({ strategy: 'merge', mergeKey: 'name' });
  });
});
