import { describe, expect, it } from 'vitest';
import { layeredPositions, needsLayout, startPosition } from './layout';
import { LAYER_SPACING, NODE_SIZE, START_ID } from './model';
import { aGraph, aNode } from './testing';

describe('layeredPositions', () => {
  it.each([
    [
      'a chain',
      ['a', 'b', 'c'],
      ['a->b', 'b->c'],
      [
        ['a', 1],
        ['b', 2],
        ['c', 3],
      ],
    ],
    [
      'a switch between two nodes',
      ['a', 's1', 'b'],
      ['a->s1', 's1->b'],
      [
        ['a', 1],
        ['s1', 2],
        ['b', 3],
      ],
    ],
    [
      'two roots',
      ['a', 'b', 'c'],
      ['a->c', 'b->c'],
      [
        ['a', 1],
        ['b', 1],
        ['c', 2],
      ],
    ],
  ] as const)('puts %s in layers 220 apart', (_what, ids, links, layers) => {
    const at = layeredPositions(aGraph([...ids], [...links]));
    const startX = at.get(START_ID)!.x;
    for (const [id, layer] of layers) {
      const item = at.get(id)!;
      // compare centres: the starting point and switches are 50 px, nodes 85
      const size = id.startsWith('s') ? 50 : NODE_SIZE;
      expect(item.x + size / 2 - (startX + 25)).toBe(layer * LAYER_SPACING);
    }
  });

  it('keeps nodes of one layer 150 apart vertically', () => {
    const at = layeredPositions(aGraph(['a', 'b', 'c']));
    const ys = ['a', 'b', 'c'].map((id) => at.get(id)!.y).sort((x, y) => x - y);
    expect(ys[1]! - ys[0]!).toBe(150);
    expect(ys[2]! - ys[1]!).toBe(150);
  });
});

describe('startPosition and needsLayout', () => {
  it.each([
    [[aNode('a', { x: 300, y: 100 })], { x: 300 - LAYER_SPACING }],
    [[aNode('a', { x: 500, y: 0 }), aNode('b', { x: 200, y: 300 })], { x: 200 - LAYER_SPACING }],
  ])('the starting point sits a layer left of the leftmost node (%#)', (nodes, expected) => {
    expect(startPosition({ nodes, switches: [], edges: [] })).toMatchObject(expected);
  });

  it.each([
    [[aNode('a'), aNode('b')], true],
    [[aNode('a'), aNode('b', { x: 10 })], false],
    [[aNode('a')], false],
  ])('needsLayout(%#) is %s', (nodes, expected) => {
    expect(needsLayout({ nodes, switches: [], edges: [] })).toBe(expected);
  });
});
