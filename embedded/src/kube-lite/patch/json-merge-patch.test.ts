import { describe, expect, it } from 'vitest';
import { applyJsonPatch, type JsonPatchOperation } from './json-patch.js';
import { applyMergePatch } from './merge-patch.js';
import { PatchError } from './errors.js';

const doc = { a: { b: 1, 'x/y': 2, 't~': 3 }, list: [1, 2, 3] };

describe('applyJsonPatch', () => {
  it.each<[string, JsonPatchOperation[], unknown]>([
    [
      'add a field',
      [{ op: 'add', path: '/a/c', value: { d: 1 } }],
      { a: { b: 1, 'x/y': 2, 't~': 3, c: { d: 1 } }, list: [1, 2, 3] },
    ],
    ['add at the end with -', [{ op: 'add', path: '/list/-', value: 4 }], { ...doc, list: [1, 2, 3, 4] }],
    ['insert into a list', [{ op: 'add', path: '/list/0', value: 0 }], { ...doc, list: [0, 1, 2, 3] }],
    [
      'remove escaped keys',
      [
        { op: 'remove', path: '/a/x~1y' },
        { op: 'remove', path: '/a/t~0' },
      ],
      { a: { b: 1 }, list: [1, 2, 3] },
    ],
    ['replace', [{ op: 'replace', path: '/list/1', value: 9 }], { ...doc, list: [1, 9, 3] }],
    ['move', [{ op: 'move', from: '/a/b', path: '/b' }], { a: { 'x/y': 2, 't~': 3 }, list: [1, 2, 3], b: 1 }],
    ['copy', [{ op: 'copy', from: '/list/0', path: '/list/-' }], { ...doc, list: [1, 2, 3, 1] }],
    ['passing test', [{ op: 'test', path: '/a/b', value: 1 }], doc],
    ['replace the whole document', [{ op: 'replace', path: '', value: { z: 1 } }], { z: 1 }],
  ])('%s', (_name, ops, expected) => {
    const input = structuredClone(doc);
    expect(applyJsonPatch(input, ops)).toEqual(expected);
    expect(input).toEqual(doc);
  });

  it.each<[string, JsonPatchOperation[], string, string]>([
    [
      'failing test',
      [{ op: 'test', path: '/a/b', value: 2 }],
      'Invalid',
      'testing value /a/b failed: test failed',
    ],
    [
      'remove of a missing key',
      [{ op: 'remove', path: '/a/zz' }],
      'Invalid',
      'Unable to remove nonexistent key: zz: missing value',
    ],
    [
      'replace of a missing key',
      [{ op: 'replace', path: '/zz', value: 1 }],
      'Invalid',
      'replace operation does not apply: doc is missing key: /zz: missing value',
    ],
    [
      'add below a missing path',
      [{ op: 'add', path: '/q/r', value: 1 }],
      'Invalid',
      'add operation does not apply: doc is missing path: "/q/r": missing value',
    ],
    [
      'index out of range',
      [{ op: 'add', path: '/list/7', value: 1 }],
      'Invalid',
      'Unable to access invalid index: 7: invalid index referenced',
    ],
    [
      'unknown op',
      [{ op: 'frob', path: '/a' } as unknown as JsonPatchOperation],
      'BadRequest',
      'Unexpected kind: frob',
    ],
  ])('rejects %s', (_name, ops, reason, message) => {
    const err = (() => {
      try {
        applyJsonPatch(doc, ops);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(PatchError);
    expect(err).toMatchObject({ reason, message, code: reason === 'Invalid' ? 422 : 400 });
  });

  it('applies nothing when a later operation fails', () => {
    const input = structuredClone(doc);
    expect(() =>
      applyJsonPatch(input, [
        { op: 'remove', path: '/a/b' },
        { op: 'test', path: '/a/b', value: 1 },
      ]),
    ).toThrow();
    expect(input).toEqual(doc);
  });
});

describe('applyMergePatch', () => {
  it.each<[string, unknown, unknown, unknown]>([
    [
      'merges objects and deletes nulls',
      { a: { b: 1, c: 2 }, d: 1 },
      { a: { b: null, e: 3 } },
      { a: { c: 2, e: 3 }, d: 1 },
    ],
    ['replaces lists', { l: [1, 2] }, { l: [3] }, { l: [3] }],
    ['replaces scalars with objects', { a: 1 }, { a: { b: null, c: 1 } }, { a: { c: 1 } }],
    ['a non-object patch replaces the document', { a: 1 }, [1], [1]],
  ])('%s', (_name, target, patch, expected) => {
    const before = structuredClone(target);
    expect(applyMergePatch(target, patch)).toEqual(expected);
    expect(target).toEqual(before);
  });
});
