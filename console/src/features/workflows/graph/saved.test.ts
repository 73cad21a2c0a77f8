import { describe, expect, it } from 'vitest';
import { START_ID } from './model';
import { bodyOf, graphOf } from './saved';
import { aGraph, aNode } from './testing';

describe('graphOf', () => {
  it.each([
    ['positions given: kept', { x: 10, y: 20 }, { x: 300, y: 20 }, false],
    ['positions missing (kubectl): laid out', { x: null, y: null }, { x: null, y: null }, true],
    ['everything at the origin: laid out', { x: 0, y: 0 }, { x: 0, y: 0 }, true],
  ])('%s', (_what, a, b, laidOut) => {
    const graph = graphOf({
      nodes: [
        { ...aNode('a'), ...a },
        { ...aNode('b'), ...b },
      ],
      switches: [],
      edges: [{ id: 'a->b', from: 'a', to: 'b', type: 'single' }],
    });
    const [ga, gb] = graph.nodes;
    if (laidOut) expect(gb!.x - ga!.x).toBe(220);
    else
      expect([ga, gb].map((n) => [n!.x, n!.y])).toEqual([
        [10, 20],
        [300, 20],
      ]);
  });

  it('adds the start edges a kubectl object leaves out', () => {
    const graph = graphOf({ nodes: [aNode('a', { x: 1, y: 1 })], switches: [], edges: [] });
    expect(graph.edges).toEqual([expect.objectContaining({ from: START_ID, to: 'a', type: 'start' })]);
  });
});

describe('bodyOf', () => {
  it.each([
    [
      { name: ' wf ', version: '', tags: ['t'] },
      { name: 'wf', version: '1.0.0', tags: ['t'] },
    ],
    [
      { name: 'wf', version: '2.0.0', tags: [] },
      { name: 'wf', version: '2.0.0', tags: [] },
    ],
  ])('meta %j → %j, with the graph as drawn', (meta, expected) => {
    const graph = aGraph(['a', 'b'], ['a->b']);
    expect(bodyOf(meta, graph)).toEqual({
      ...expected,
      nodes: graph.nodes,
      switches: [],
      edges: graph.edges,
    });
  });
});
