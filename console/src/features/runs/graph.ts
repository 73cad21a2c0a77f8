// The run's graph for React Flow: the workflow drawing (the editor's mapping, read-only) with each
// sandbox node carrying its status and its dynamic instances' statuses.
import type { Edge, Node, NodeHandle } from '@xyflow/react';
import {
  sandboxHandles,
  toFlowEdges,
  toFlowNodes,
  type FlowEdge,
  type FlowNode,
} from '../workflows/graph/flow';
import { layeredPositions } from '../workflows/graph/layout';
import { NODE_SIZE, START_ID, type Graph, type GraphNode } from '../workflows/graph/model';
import type { Run, RunGraph, RunStatus, SandboxStatus, SubSandboxStatus } from '../sessions/types';

export interface RunNodeData extends Record<string, unknown> {
  node: GraphNode;
  status: RunStatus;
  subs: SubSandboxStatus[];
}
export type RunSandboxNode = Node<RunNodeData, 'runSandbox'>;
export type RunFlowNode = Exclude<FlowNode, { type: 'sandbox' }> | RunSandboxNode;

/**
 * The handles RunNode draws: its box is not positioned, so they sit on the node's own left and right
 * sides (no border offset). See sandboxHandles for why React Flow is given them.
 */
export const RUN_NODE_HANDLES: readonly NodeHandle[] = sandboxHandles(0);

/** The run's drawing; items saved without a position (x/y null) are laid out like the editor's Order. */
export function asGraph(g: RunGraph | undefined): Graph {
  const unplaced = [...(g?.nodes ?? []), ...(g?.switches ?? [])].some((n) => n.x === null || n.y === null);
  const graph: Graph = {
    nodes: (g?.nodes ?? []).map((n) => ({ ...n, x: n.x ?? 0, y: n.y ?? 0 })),
    switches: (g?.switches ?? []).map((n) => ({ ...n, x: n.x ?? 0, y: n.y ?? 0 })),
    edges: [...(g?.edges ?? []), ...(g?.conditionEdges ?? [])],
  };
  // The saved graph leaves out the starting point's arrows: the editor draws them to every root
  // (its withStartEdges looks nodes up one by one, too slow for 5,000 of them).
  const fed = new Set(graph.edges.map((e) => e.to));
  const starts = graph.nodes
    .filter((n) => !fed.has(n.id))
    .map((n): Graph['edges'][number] => ({
      id: `${START_ID}->${n.id}`,
      from: START_ID,
      to: n.id,
      type: 'start',
      condition: 'starting',
    }));
  const drawn = { ...graph, edges: [...graph.edges, ...starts] };
  if (!unplaced) return drawn;
  const at = layeredPositions(drawn);
  const place = <T extends { id: string; x: number; y: number }>(n: T): T => ({
    ...n,
    ...(at.get(n.id) ?? {}),
  });
  return { ...drawn, nodes: drawn.nodes.map(place), switches: drawn.switches.map(place) };
}

/** The status entry of a node: by id, else by name (the operator names steps after nodes). */
export function statusIndex(statuses: readonly SandboxStatus[] | undefined) {
  const byKey = new Map<string, SandboxStatus>();
  for (const s of statuses ?? []) {
    if (s.id) byKey.set(`id:${s.id}`, s);
    byKey.set(`name:${s.name}`, s);
  }
  return (node: { id: string; name: string }) => byKey.get(`id:${node.id}`) ?? byKey.get(`name:${node.name}`);
}

export function runFlow(run: Run): { nodes: RunFlowNode[]; edges: FlowEdge[] } {
  const graph = asGraph(run.workflow);
  const statusOf = statusIndex(run.sandbox_statuses);
  const nodes = toFlowNodes(graph, true).map((n): RunFlowNode => {
    if (n.type !== 'sandbox') return { ...n, selectable: n.id !== START_ID };
    const status = statusOf(n.data.node);
    return {
      ...n,
      type: 'runSandbox',
      initialWidth: NODE_SIZE,
      initialHeight: NODE_SIZE,
      handles: [...RUN_NODE_HANDLES],
      data: { node: n.data.node, status: status?.status ?? 'WAITING', subs: status?.sub_sandbox ?? [] },
    };
  });
  const ids = new Set(nodes.map((n) => n.id));
  // Edges whose ends are not drawn (a condition edge to a removed node) would warn in React Flow.
  const edges = toFlowEdges(graph)
    .filter((e: Edge) => ids.has(e.source) && ids.has(e.target))
    .map((e) => ({ ...e, deletable: false, selectable: false }));
  return { nodes, edges };
}
