// Order (spec 2 §2, §9): a layered layout from the starting point, left to right.
import dagre from '@dagrejs/dagre';
import { LAYER_SPACING, NODE_SIZE, START_ID, SWITCH_SIZE, VERTICAL_SPACING, type Graph } from './model';

export type Positions = Map<string, { x: number; y: number }>;

/** Top-left positions of every node and switch (and of the starting point) in layers of 220. */
export function layeredPositions(graph: Graph): Positions {
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: 'LR', ranksep: LAYER_SPACING - NODE_SIZE, nodesep: VERTICAL_SPACING - NODE_SIZE });
  g.setDefaultEdgeLabel(() => ({}));
  // Every item takes a node's box, so centres are exactly 220 apart across layers and 150 within
  // one; switches and the starting point are then centred in their box.
  // dagre writes x and y into the label: one object per item.
  const box = () => ({ width: NODE_SIZE, height: NODE_SIZE });
  const small = new Set([START_ID, ...graph.switches.map((s) => s.id)]);
  g.setNode(START_ID, box());
  for (const n of graph.nodes) g.setNode(n.id, box());
  for (const s of graph.switches) g.setNode(s.id, box());
  for (const e of graph.edges) if (g.hasNode(e.from) && g.hasNode(e.to)) g.setEdge(e.from, e.to);
  dagre.layout(g);
  const positions: Positions = new Map();
  for (const id of g.nodes()) {
    const { x, y } = g.node(id);
    const half = (small.has(id) ? SWITCH_SIZE : NODE_SIZE) / 2;
    positions.set(id, { x: x - half, y: y - half });
  }
  return positions;
}

/** Where the starting point sits when nothing placed it: one layer left of the leftmost item. */
export function startPosition(graph: Graph): { x: number; y: number } {
  const items = [...graph.nodes, ...graph.switches];
  if (items.length === 0) return { x: 0, y: 0 };
  const left = items.reduce((a, b) => (b.x < a.x ? b : a));
  const ys = items.map((i) => i.y);
  return {
    x: left.x - LAYER_SPACING,
    y: Math.round((Math.min(...ys) + Math.max(...ys)) / 2 + (NODE_SIZE - SWITCH_SIZE) / 2),
  };
}

/** A graph whose items all sit at the origin (applied with kubectl without positions) needs Order. */
export const needsLayout = (graph: Graph) =>
  graph.nodes.length + graph.switches.length > 1 &&
  [...graph.nodes, ...graph.switches].every((i) => !i.x && !i.y);
