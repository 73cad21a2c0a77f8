// The graph ⇄ React Flow mapping: the spec's nodes, switches and edges become React Flow nodes and
// edges (plus the starting point); positions come back from drags.
import { MarkerType, type Edge, type Node } from '@xyflow/react';
import { startPosition } from './layout';
import { START_ID, type Graph, type GraphEdge, type GraphNode, type GraphSwitch } from './model';

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
