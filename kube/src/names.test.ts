import { describe, expect, it } from 'vitest';
import { CORE_KINDS, KINDS, kindPath, keyOf, splitKey } from './names.js';

describe('kindPath', () => {
  it.each([
    [KINDS.run, '/apis/sandflow.io/v1alpha1/runs'],
    [KINDS.clusterManager, '/apis/sandflow.io/v1alpha1/clustermanagers'],
    [KINDS.argoWorkflow, '/apis/argoproj.io/v1alpha1/workflows'],
    [CORE_KINDS.namespace, '/api/v1/namespaces'],
    [CORE_KINDS.resourceQuota, '/api/v1/resourcequotas'],
  ])('%o → %s', (kind, path) => expect(kindPath(kind)).toBe(path));
});

describe('keys', () => {
  it.each([
    [{ metadata: { namespace: 'sf-a', name: 'r1' } }, 'sf-a/r1', ['sf-a', 'r1']],
    [{ metadata: { name: 'platform' } }, 'platform', [undefined, 'platform']],
  ])('%o ↔ %s', (o, key, split) => {
    expect(keyOf(o)).toBe(key);
    expect(splitKey(key)).toEqual(split);
  });
});
