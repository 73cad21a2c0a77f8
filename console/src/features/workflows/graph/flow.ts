// The graph ⇄ React Flow mapping: the spec's nodes, switches and edges become React Flow nodes and
// edges (plus the starting point); positions come back from drags.
import { MarkerType, Position, type Edge, type Node, type NodeHandle } from '@xyflow/react';
import { startPosition } from './layout';
import { NODE_SIZE, START_ID, type Graph, type GraphEdge, type GraphNode, type GraphSwitch } from './model';

export type SandboxFlowNode = Node<{ node: GraphNode }, 'sandbox'>;
export type SwitchFlowNode = Node<{ item: GraphSwitch }, 'switch'>;
export type StartFlowNode = Node<Record<string, never>, 'start'>;
export type FlowNode = SandboxFlowNode | SwitchFlowNode | StartFlowNode;
export type FlowEdge = Edge<{ edge: GraphEdge }, 'workflow'>;

/** Spec 2 §9's edge colours by name. */
export const EDGE_COLOURS = {
  primary: '#5c9dff',
  success: '#4caf50',
  fail: '#f44336',
  timeout: '#ffa726',
  starting: '#9e9e9e',
} as const;
export type EdgeColour = keyof typeof EDGE_COLOURS;

export function edgeColour(edge: GraphEdge): EdgeColour {
  if (edge.type === 'start') return 'starting';
  if (edge.type === 'switchOutput') return edge.switchCondition === 'fail' ? 'fail' : 'success';
  return 'primary';
}

/** React Flow's handle box (its default style, border included: the console's box-sizing is border-box). */
export const HANDLE_SIZE = 6;

/**
 * The handles a sandbox node draws, where React Flow measures them (top-left corners, relative to
 * the node): the editor's SandboxNode is a NODE_SIZE square with a 2 px border that positions its
 * handles, so they are centred on the inner edge of its left and right borders.
 * Given with the node's size (initialWidth/initialHeight), React Flow knows a node before drawing
 * it, so with onlyRenderVisibleElements it draws only the nodes on screen from the first commit; a
 * node it has not measured it draws anyway, to measure its handles — all of a 5,000-node workflow.
 */
export function sandboxHandles(border: number): NodeHandle[] {
  const y = (NODE_SIZE - HANDLE_SIZE) / 2;
  const size = { width: HANDLE_SIZE, height: HANDLE_SIZE };
  return [
    { type: 'target', position: Position.Left, x: border - HANDLE_SIZE / 2, y, ...size },
    { type: 'source', position: Position.Right, x: NODE_SIZE - border - HANDLE_SIZE / 2, y, ...size },
  ];
}
const SANDBOX_BORDER = 2;

/** React Flow nodes: the starting point first, then sandboxes and switches. */
export function toFlowNodes(graph: Graph, readOnly: boolean, start = startPosition(graph)): FlowNode[] {
  const draggable = !readOnly;
  return [
    { id: START_ID, type: 'start', position: start, data: {}, draggable: false, deletable: false },
    ...graph.nodes.map((node): SandboxFlowNode => ({
      id: node.id,
      type: 'sandbox',
      position: { x: node.x, y: node.y },
      data: { node },
      draggable,
      initialWidth: NODE_SIZE,
      initialHeight: NODE_SIZE,
      handles: sandboxHandles(SANDBOX_BORDER),
    })),
    ...graph.switches.map((item): SwitchFlowNode => ({
      id: item.id,
      type: 'switch',
      position: { x: item.x, y: item.y },
      data: { item },
      draggable,
    })),
  ];
}

export function toFlowEdge(edge: GraphEdge): FlowEdge {
  const colour = EDGE_COLOURS[edgeColour(edge)];
  return {
    id: edge.id,
    source: edge.from,
    target: edge.to,
    type: 'workflow',
    data: { edge },
    markerEnd: { type: MarkerType.ArrowClosed, color: colour },
    style: { stroke: colour, strokeWidth: 2, ...(edge.type === 'multi' ? { strokeDasharray: '6 4' } : {}) },
    deletable: edge.type !== 'start',
  };
}

export const toFlowEdges = (graph: Graph): FlowEdge[] => graph.edges.map(toFlowEdge);

/** Positions of the dragged items, by id, from the React Flow nodes (the starting point is fixed). */
export function positionsOf(nodes: readonly FlowNode[]): Map<string, { x: number; y: number }> {
  return new Map(nodes.filter((n) => n.id !== START_ID).map((n) => [n.id, n.position]));
}
