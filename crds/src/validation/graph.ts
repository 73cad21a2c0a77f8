// The workflow graph in the shape the validator and the compiler work on: every edge typed from its
// endpoints, switch outputs carrying their condition, start edges for nodes without incoming edges.
import type { WorkflowSpec } from '../generated/types.gen.js';
import { DEFAULTS, START_NODE_ID, type EdgeType, type WorkflowNode, type WorkflowSwitch } from '../types.js';

export interface NormalizedEdge {
  id: string;
  from: string;
  to: string;
  type: EdgeType;
  /** Only on switchOutput edges. */
  switchCondition?: 'success' | 'fail';
  /** Only on multi edges. */
  instanceType?: 'line' | 'file';
  instanceInput?: string;
  instanceNumber: number;
  /** True for start edges the normalizer added. */
  implicit?: boolean;
}

export interface NormalizedGraph {
  nodes: WorkflowNode[];
  switches: WorkflowSwitch[];
  nodeById: Map<string, WorkflowNode>;
  switchById: Map<string, WorkflowSwitch>;
  edges: NormalizedEdge[];
}

/**
 * What a node waits for, derived from its incoming edges. A switch is transparent: an edge
 * switch→N becomes a dependency of N on the switch's input node, with the switch condition.
 */
export type Dependency =
  | { kind: 'start'; edge: NormalizedEdge }
  | { kind: 'single'; from: string; edge: NormalizedEdge }
  | { kind: 'multi'; from: string; edge: NormalizedEdge }
  | { kind: 'switch'; from: string; when: 'success' | 'fail'; switchId: string; edge: NormalizedEdge };

/** Normalizes the graph of a workflow spec. Never throws: unknown endpoints are kept for the validator. */
export function normalizeGraph(spec: Pick<WorkflowSpec, 'nodes' | 'switches' | 'edges'>): NormalizedGraph {
  const nodes = spec.nodes ?? [];
  const switches = spec.switches ?? [];
  const nodeById = new Map<string, WorkflowNode>();
  for (const n of nodes) if (!nodeById.has(n.id)) nodeById.set(n.id, n);
  const switchById = new Map<string, WorkflowSwitch>();
  for (const s of switches) if (!switchById.has(s.id)) switchById.set(s.id, s);

  const outputsSeen = new Map<string, number>();
  const edges: NormalizedEdge[] = [];
  (spec.edges ?? []).forEach((e, i) => {
    let type: EdgeType;
    if (e.from === START_NODE_ID) type = 'start';
    else if (switchById.has(e.to)) type = 'switchInput';
    else if (switchById.has(e.from)) type = 'switchOutput';
    else type = e.type === 'multi' ? 'multi' : 'single';
    const edge: NormalizedEdge = {
      id: e.id ?? `edge-${i}`,
      from: e.from,
      to: e.to,
      type,
      instanceNumber: e.instanceNumber ?? DEFAULTS.instanceNumber,
    };
    if (type === 'switchOutput') {
      // The first output of a switch defaults to success, the second to fail (spec 2 §4).
      const index = outputsSeen.get(e.from) ?? 0;
      outputsSeen.set(e.from, index + 1);
      edge.switchCondition = e.switchCondition ?? (index === 1 ? 'fail' : 'success');
    }
    if (type === 'multi') {
      edge.instanceType = e.instanceType ?? 'line';
      if (e.instanceInput) edge.instanceInput = e.instanceInput;
    }
    edges.push(edge);
  });

  // Nodes without incoming edges get automatic start edges (spec 2 §4).
  const hasIncoming = new Set<string>();
  for (const e of edges) hasIncoming.add(e.to);
  for (const n of nodes) {
    if (!hasIncoming.has(n.id)) {
      hasIncoming.add(n.id);
      edges.push({
        id: `start-${n.id}`,
        from: START_NODE_ID,
        to: n.id,
        type: 'start',
        instanceNumber: 1,
        implicit: true,
      });
    }
  }
  return { nodes, switches, nodeById, switchById, edges };
}

/** Dependencies of every node (by node id), resolving switches to their input node. */
export function nodeDependencies(graph: NormalizedGraph): Map<string, Dependency[]> {
  const switchInput = new Map<string, string>();
  for (const e of graph.edges)
    if (e.type === 'switchInput' && !switchInput.has(e.to)) switchInput.set(e.to, e.from);
  const deps = new Map<string, Dependency[]>();
  for (const n of graph.nodes) deps.set(n.id, []);
  for (const e of graph.edges) {
    const list = deps.get(e.to);
    if (!list) continue; // edge into a switch or unknown node
    if (e.type === 'start') list.push({ kind: 'start', edge: e });
    else if (e.type === 'switchOutput') {
      const from = switchInput.get(e.from);
      if (from !== undefined)
        list.push({ kind: 'switch', from, when: e.switchCondition ?? 'success', switchId: e.from, edge: e });
    } else list.push({ kind: e.type === 'multi' ? 'multi' : 'single', from: e.from, edge: e });
  }
  return deps;
}

/** Node ids in a topological order (Kahn), or undefined when the graph has a cycle. */
export function topologicalOrder(graph: NormalizedGraph): string[] | undefined {
  const vertices = [...graph.nodeById.keys(), ...graph.switchById.keys()];
  const indegree = new Map<string, number>();
  const out = new Map<string, string[]>();
  for (const v of vertices) {
    indegree.set(v, 0);
    out.set(v, []);
  }
  for (const e of graph.edges) {
    if (e.type === 'start' || !out.has(e.from) || !indegree.has(e.to)) continue;
    out.get(e.from)!.push(e.to);
    indegree.set(e.to, indegree.get(e.to)! + 1);
  }
  const queue = vertices.filter((v) => indegree.get(v) === 0);
  const order: string[] = [];
  for (let i = 0; i < queue.length; i++) {
    const v = queue[i]!;
    order.push(v);
    for (const w of out.get(v)!) {
      const d = indegree.get(w)! - 1;
      indegree.set(w, d);
      if (d === 0) queue.push(w);
    }
  }
  return order.length === vertices.length ? order.filter((v) => graph.nodeById.has(v)) : undefined;
}
