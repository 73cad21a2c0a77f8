// The canvas rules of spec 2 §4 on edges: typing by endpoints, self edges and cycles refused,
// switch outputs success then fail, start edges for nodes without incoming edges, split and merge.
import {
  DEFAULT_INSTANCE_NUMBER,
  START_ID,
  isNode,
  isSwitch,
  type Graph,
  type GraphEdge,
  type InstanceType,
  type SwitchCondition,
} from './model';

/** Why an edge was refused; each has its toast text (spec 2 §5, §8). */
export type EdgeRefusal =
  'same' | 'cycle' | 'duplicate' | 'intoStart' | 'switchInput' | 'switchOutput' | 'unknown';

export type Connection = { graph: Graph; edge: GraphEdge } | { refused: EdgeRefusal };

/** True when `to` already reaches `from` over the drawn edges, so from→to would close a cycle. */
export function wouldCycle(graph: Graph, from: string, to: string): boolean {
  const out = new Map<string, string[]>();
  for (const e of graph.edges) {
    if (e.type === 'start') continue;
    const list = out.get(e.from);
    if (list) list.push(e.to);
    else out.set(e.from, [e.to]);
  }
  const seen = new Set<string>([to]);
  const stack = [to];
  while (stack.length > 0) {
    const at = stack.pop()!;
    if (at === from) return true;
    for (const next of out.get(at) ?? [])
      if (!seen.has(next)) {
        seen.add(next);
        stack.push(next);
      }
  }
  return false;
}

/** The first output of a switch is success, the second fail; later ones take what is missing. */
export function nextSwitchCondition(graph: Graph, switchId: string): SwitchCondition {
  const taken = graph.edges.filter((e) => e.type === 'switchOutput' && e.from === switchId);
  if (taken.length === 0) return 'success';
  return taken.some((e) => e.switchCondition === 'fail') ? 'success' : 'fail';
}

export const edgeId = (from: string, to: string) => `${from}->${to}`;

/**
 * Adds the arrow from → to, typed by its endpoints: from the starting point a start edge,
 * into a switch its input, out of a switch an output, else single (or multi when asked).
 */
export function connect(graph: Graph, from: string, to: string, multi = false): Connection {
  if (from === to) return { refused: 'same' };
  if (to === START_ID) return { refused: 'intoStart' };
  const fromKnown = from === START_ID || isNode(graph, from) || isSwitch(graph, from);
  if (!fromKnown || !(isNode(graph, to) || isSwitch(graph, to))) return { refused: 'unknown' };
  if (graph.edges.some((e) => e.from === from && e.to === to && e.type !== 'start'))
    return { refused: 'duplicate' };
  let edge: GraphEdge;
  if (from === START_ID) {
    if (isSwitch(graph, to)) return { refused: 'switchInput' };
    edge = { id: edgeId(from, to), from, to, type: 'start', condition: 'starting' };
  } else if (isSwitch(graph, to)) {
    if (isSwitch(graph, from)) return { refused: 'switchOutput' };
    if (graph.edges.some((e) => e.to === to && e.type === 'switchInput')) return { refused: 'switchInput' };
    edge = { id: edgeId(from, to), from, to, type: 'switchInput', condition: 'primary' };
  } else if (isSwitch(graph, from)) {
    edge = {
      id: edgeId(from, to),
      from,
      to,
      type: 'switchOutput',
      condition: 'primary',
      switchCondition: nextSwitchCondition(graph, from),
    };
  } else {
    edge = multi ? asMulti({ id: edgeId(from, to), from, to, type: 'multi' }) : single(from, to);
  }
  if (edge.type !== 'start' && wouldCycle(graph, from, to)) return { refused: 'cycle' };
  if (edge.type === 'start' && graph.edges.some((e) => e.type === 'start' && e.to === to))
    return { refused: 'duplicate' };
  return { graph: withStartEdges({ ...graph, edges: [...graph.edges, edge] }), edge };
}

const single = (from: string, to: string): GraphEdge => ({
  id: edgeId(from, to),
  from,
  to,
  type: 'single',
  condition: 'primary',
});

function asMulti(edge: GraphEdge, instanceType: InstanceType = 'line'): GraphEdge {
  return {
    id: edge.id,
    from: edge.from,
    to: edge.to,
    type: 'multi',
    condition: 'primary',
    instanceType,
    instanceInput: '',
    instanceNumber: DEFAULT_INSTANCE_NUMBER,
  };
}

/**
 * Every node without an incoming edge gets a start edge (spec 2 §4); a start edge into a node
 * that now has another incoming edge goes, so the starting point always points at the roots.
 */
export function withStartEdges(graph: Graph): Graph {
  const fedBy = new Set(graph.edges.filter((e) => e.type !== 'start').map((e) => e.to));
  const started = new Set<string>();
  const edges = graph.edges.filter((e) => {
    if (e.type !== 'start') return true;
    if (fedBy.has(e.to) || started.has(e.to) || !isNode(graph, e.to)) return false;
    started.add(e.to);
    return true;
  });
  for (const node of graph.nodes)
    if (!fedBy.has(node.id) && !started.has(node.id))
      edges.push({
        id: edgeId(START_ID, node.id),
        from: START_ID,
        to: node.id,
        type: 'start',
        condition: 'starting',
      });
  const same = edges.length === graph.edges.length && edges.every((e, i) => e === graph.edges[i]);
  return same ? graph : { ...graph, edges };
}

/** Removes nodes, switches and edges by id, with the edges touching a removed node or switch. */
export function removeItems(graph: Graph, ids: readonly string[]): Graph {
  const gone = new Set(ids);
  const nodes = graph.nodes.filter((n) => !gone.has(n.id));
  const switches = graph.switches.filter((s) => !gone.has(s.id));
  const edges = graph.edges.filter((e) => !gone.has(e.id) && !gone.has(e.from) && !gone.has(e.to));
  return withStartEdges({ nodes, switches, edges });
}

/** Split: a single edge becomes multi (dynamic instances, one per line by default). */
export function split(graph: Graph, id: string): Graph {
  return mapEdge(graph, id, (e) => (e.type === 'single' ? asMulti(e) : e));
}

/** Merge: a multi edge goes back to single, dropping its instance settings. */
export function merge(graph: Graph, id: string): Graph {
  return mapEdge(graph, id, (e) => (e.type === 'multi' ? single(e.from, e.to) : e));
}

/** Updates an edge's settings (switch condition, instance type/input/number). */
export function updateEdge(
  graph: Graph,
  id: string,
  patch: Pick<Partial<GraphEdge>, 'switchCondition' | 'instanceType' | 'instanceInput' | 'instanceNumber'>,
): Graph {
  return mapEdge(graph, id, (e) => ({ ...e, ...patch }));
}

function mapEdge(graph: Graph, id: string, change: (edge: GraphEdge) => GraphEdge): Graph {
  let changed = false;
  const edges = graph.edges.map((e) => {
    if (e.id !== id) return e;
    const next = change(e);
    changed ||= next !== e;
    return next;
  });
  return changed ? { ...graph, edges } : graph;
}
