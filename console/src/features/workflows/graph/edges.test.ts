import { describe, expect, it } from 'vitest';
import { connect, merge, removeItems, split, withStartEdges, wouldCycle, type Connection } from './edges';
import { START_ID } from './model';
import { aGraph } from './testing';

const refusal = (c: Connection) => ('refused' in c ? c.refused : null);
const edgeOf = (c: Connection) => ('edge' in c ? c.edge : undefined);

describe('connect', () => {
  it.each([
    ['a self edge', ['a'], [], 'a', 'a', 'same'],
    ['a cycle of two', ['a', 'b'], ['a->b'], 'b', 'a', 'cycle'],
    ['a cycle of three', ['a', 'b', 'c'], ['a->b', 'b->c'], 'c', 'a', 'cycle'],
    ['a cycle through a switch', ['a', 's1', 'b'], ['a->s1', 's1->b'], 'b', 'a', 'cycle'],
    ['an arrow into the starting point', ['a'], [], 'a', START_ID, 'intoStart'],
    ['the same arrow twice', ['a', 'b'], ['a->b'], 'a', 'b', 'duplicate'],
    ['a second switch input', ['a', 'b', 's1'], ['a->s1'], 'b', 's1', 'switchInput'],
    ['a switch into a switch', ['a', 's1', 's2'], ['a->s1'], 's1', 's2', 'switchOutput'],
    ['the starting point into a switch', ['s1'], [], START_ID, 's1', 'switchInput'],
    ['an unknown end', ['a'], [], 'a', 'ghost', 'unknown'],
  ])('refuses %s', (_what, ids, links, from, to, why) => {
    expect(refusal(connect(aGraph(ids, links), from, to))).toBe(why);
  });

  it.each([
    ['node → node', ['a', 'b'], [], 'a', 'b', false, { type: 'single', condition: 'primary' }],
    [
      'node → node, multi',
      ['a', 'b'],
      [],
      'a',
      'b',
      true,
      { type: 'multi', instanceType: 'line', instanceInput: '', instanceNumber: 1 },
    ],
    ['node → switch', ['a', 's1'], [], 'a', 's1', false, { type: 'switchInput' }],
    ['first switch output', ['a', 's1', 'b'], ['a->s1'], 's1', 'b', false, { switchCondition: 'success' }],
    [
      'second switch output',
      ['a', 's1', 'b', 'c'],
      ['a->s1', 's1->b'],
      's1',
      'c',
      false,
      { type: 'switchOutput', switchCondition: 'fail' },
    ],
    [
      'a diamond is no cycle',
      ['a', 'b', 'c', 'd'],
      ['a->b', 'a->c', 'b->d'],
      'c',
      'd',
      false,
      { type: 'single' },
    ],
  ])('adds %s', (_what, ids, links, from, to, multi, expected) => {
    expect(edgeOf(connect(aGraph(ids, links), from, to, multi))).toMatchObject({ from, to, ...expected });
  });

  it('moves the start edge of the target away once it is fed', () => {
    const result = connect(aGraph(['a', 'b']), 'a', 'b');
    const starts = 'graph' in result ? result.graph.edges.filter((e) => e.type === 'start') : [];
    expect(starts.map((e) => e.to)).toEqual(['a']);
  });
});

describe('wouldCycle', () => {
  it.each([
    [['a->b'], 'b', 'a', true],
    [['a->b'], 'a', 'b', false],
    [['a->b', 'b->c'], 'c', 'a', true],
    [['a->b', 'c->d'], 'd', 'a', false],
  ])('edges %j, %s→%s: %s', (links, from, to, expected) => {
    expect(wouldCycle(aGraph(['a', 'b', 'c', 'd'], links), from, to)).toBe(expected);
  });
});

describe('start edges', () => {
  it.each([
    ['every lone node', ['a', 'b'], [], ['a', 'b']],
    ['only the roots', ['a', 'b', 'c'], ['a->b', 'b->c'], ['a']],
    ['not switches', ['a', 's1'], ['a->s1'], ['a']],
    ['nodes behind a switch are fed', ['a', 's1', 'b'], ['a->s1', 's1->b'], ['a']],
  ])('go to %s', (_what, ids, links, started) => {
    const graph = aGraph(ids, links);
    expect(graph.edges.filter((e) => e.from === START_ID).map((e) => e.to)).toEqual(started);
  });

  it('leaves an already complete graph untouched (same object)', () => {
    const graph = aGraph(['a', 'b'], ['a->b']);
    expect(withStartEdges(graph)).toBe(graph);
  });
});

describe('removeItems', () => {
  it.each([
    ['a node takes its edges', ['b'], ['a', 'c'], ['a->s1', 's1->c', 'start->a']],
    [
      'an edge restores a start edge',
      ['a->b'],
      ['a', 'b', 'c'],
      ['a->s1', 'b->c', 's1->c', 'start->a', 'start->b'],
    ],
    ['a switch takes its outputs', ['s1'], ['a', 'b', 'c'], ['a->b', 'b->c', 'start->a']],
  ])('%s', (_what, ids, nodes, edges) => {
    const next = removeItems(aGraph(['a', 'b', 'c', 's1'], ['a->b', 'b->c', 'a->s1', 's1->c']), ids);
    expect(next.nodes.map((n) => n.id)).toEqual(nodes);
    expect(next.edges.map((e) => e.id).sort()).toEqual([...edges].sort());
  });
});

describe('split and merge', () => {
  it.each([
    [
      'split makes a single edge multi',
      split,
      'single',
      { type: 'multi', instanceType: 'line', instanceNumber: 1 },
    ],
    ['merge makes a multi edge single', merge, 'multi', { type: 'single' }],
  ] as const)('%s', (_what, action, from, expected) => {
    const base = aGraph(['a', 'b'], ['a->b']);
    const graph = from === 'multi' ? split(base, 'a->b') : base;
    const edge = action(graph, 'a->b').edges.find((e) => e.id === 'a->b');
    expect(edge).toMatchObject(expected);
    if (expected.type === 'single') expect(edge).not.toHaveProperty('instanceType');
  });

  it.each([
    ['split', split],
    ['merge', merge],
  ] as const)('%s leaves other edge types alone', (_what, action) => {
    const graph = aGraph(['a', 's1'], ['a->s1']);
    expect(action(graph, 'a->s1')).toBe(graph);
  });
});
