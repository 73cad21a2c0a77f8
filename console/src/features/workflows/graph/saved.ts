// The saved workflow (spec 2 §3) ⇄ the editor's graph and save body.
import type { SavedWorkflow, WorkflowBody } from '../types';
import { withStartEdges } from './edges';
import { moveItems } from './items';
import { layeredPositions, needsLayout } from './layout';
import type { Graph } from './model';

/**
 * The graph of a loaded workflow. One applied with kubectl may have no positions (laid out here)
 * and no start edges (added, as the operator does).
 */
export function graphOf(saved: Pick<SavedWorkflow, 'nodes' | 'switches' | 'edges'>): Graph {
  const graph = withStartEdges({
    nodes: saved.nodes.map((n) => ({ ...n, x: n.x ?? 0, y: n.y ?? 0, variables: n.variables ?? [] })),
    switches: saved.switches.map((s) => ({ ...s, x: s.x ?? 0, y: s.y ?? 0 })),
    edges: saved.edges.map((e) => ({ ...e })),
  });
  const unplaced = [...saved.nodes, ...saved.switches].some((i) => i.x === null || i.y === null);
  return unplaced || needsLayout(graph) ? moveItems(graph, layeredPositions(graph)) : graph;
}

export interface Meta {
  name: string;
  version: string;
  tags: string[];
}

/** POST / PUT body: the meta fields and the graph as drawn. */
export const bodyOf = (meta: Meta, graph: Graph): WorkflowBody => ({
  name: meta.name.trim(),
  version: meta.version.trim() || '1.0.0',
  tags: meta.tags,
  nodes: graph.nodes,
  switches: graph.switches,
  edges: graph.edges,
});
