import { describe, expect, it } from 'vitest';
import { EMPTY_GRAPH } from './model';
import { aNode } from './testing';
import { saveProblem } from './validate';

const graphOf = (...nodes: ReturnType<typeof aNode>[]) => ({ ...EMPTY_GRAPH, nodes });

describe('saveProblem (spec 2 §5)', () => {
  it.each([
    ['an empty name', '  ', graphOf(aNode('a')), 'emptyName'],
    ['no nodes', 'wf', EMPTY_GRAPH, 'noNodes'],
    ['a node without its sandbox', 'wf', graphOf(aNode('a', { src_id: '' })), 'noAttributes'],
    [
      'a variable without value',
      'wf',
      graphOf(aNode('a', { variables: [{ name: 'K', value: '' }] })),
      'emptyVariables',
    ],
    ['two nodes of one name', 'wf', graphOf(aNode('a'), aNode('b', { name: 'a' })), 'duplicateSandbox'],
    [
      'a valid workflow',
      'wf',
      graphOf(aNode('a', { variables: [{ name: 'K', value: 'v' }] }), aNode('b')),
      null,
    ],
    [
      'a blank variable row is ignored',
      'wf',
      graphOf(aNode('a', { variables: [{ name: '', value: '' }] })),
      null,
    ],
  ])('%s → %s', (_what, name, graph, expected) => {
    expect(saveProblem(name, graph)).toBe(expected);
  });
});
