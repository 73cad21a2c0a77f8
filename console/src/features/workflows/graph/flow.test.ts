import { describe, expect, it } from 'vitest';
import { connect, split } from './edges';
import { EDGE_COLOURS, edgeColour, positionsOf, sandboxHandles, toFlowEdges, toFlowNodes } from './flow';
import { moveItems } from './items';
import { NODE_SIZE, START_ID, type Graph } from './model';
import { aGraph } from './testing';

const sample = (): Graph => {
  const base = aGraph(['a', 'b', 'c', 's1'], ['a->b', 'a->s1', 's1->c']);
  const withFail = connect(base, 's1', 'b');
  if (!('graph' in withFail)) throw new Error('fixture');
  return split(withFail.graph, 'a->b');
};

describe('graph → React Flow', () => {
  it.each([
    ['start->a', 'starting'],
    ['a->b', 'primary'],
    ['a->s1', 'primary'],
    ['s1->c', 'success'],
    ['s1->b', 'fail'],
  ])('edge %s is drawn in %s', (id, colour) => {
    const edge = sample().edges.find((e) => e.id === id)!;
    expect(edgeColour(edge)).toBe(colour);
    expect(toFlowEdges(sample()).find((e) => e.id === id)?.style?.stroke).toBe(
      EDGE_COLOURS[colour as keyof typeof EDGE_COLOURS],
    );
  });

  it.each([
    [false, true],
    [true, false],
  ])('read only %s → sandbox nodes draggable %s', (readOnly, draggable) => {
    const nodes = toFlowNodes(sample(), readOnly);
    expect(nodes[0]).toMatchObject({ id: START_ID, type: 'start', draggable: false });
    expect(nodes.filter((n) => n.type !== 'start').every((n) => n.draggable === draggable)).toBe(true);
    expect(nodes.map((n) => n.type).sort()).toEqual(['sandbox', 'sandbox', 'sandbox', 'start', 'switch']);
  });

  // Known size and handles: with onlyRenderVisibleElements React Flow draws a sandbox only when it
  // is on screen, instead of drawing every node once to measure it.
  it.each([
    ['sandbox', NODE_SIZE, 2],
    ['switch', undefined, 0],
    ['start', undefined, 0],
  ] as const)('a %s node is given size %s and %s handles before it is drawn', (type, size, handles) => {
    for (const n of toFlowNodes(sample(), false).filter((f) => f.type === type)) {
      expect([n.initialWidth, n.initialHeight]).toEqual([size, size]);
      expect(n.handles?.length ?? 0).toBe(handles);
    }
  });

  it.each([
    [0, 'target', 'left', -3],
    [0, 'source', 'right', NODE_SIZE - 3],
    [2, 'target', 'left', -1],
    [2, 'source', 'right', NODE_SIZE - 5],
  ] as const)('border %i: the %s handle is centred on the %s side, at x %i', (border, type, position, x) => {
    expect(sandboxHandles(border).filter((h) => h.type === type)).toEqual([
      { type, position, x, y: (NODE_SIZE - 6) / 2, width: 6, height: 6 },
    ]);
  });

  it('a multi edge is dashed', () => {
    expect(toFlowEdges(sample()).find((e) => e.id === 'a->b')?.style?.strokeDasharray).toBeTruthy();
  });
});

describe('React Flow → graph', () => {
  it('takes positions back, never the starting point', () => {
    const nodes = toFlowNodes(sample(), false).map((n) => ({ ...n, position: { x: 7, y: 9 } }));
    const moved = moveItems(sample(), positionsOf(nodes));
    expect([...moved.nodes, ...moved.switches].every((i) => i.x === 7 && i.y === 9)).toBe(true);
    expect(positionsOf(nodes).has(START_ID)).toBe(false);
  });
});
