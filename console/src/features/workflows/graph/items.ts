// Adding, moving and editing the nodes and switches of the graph.
import { withStartEdges } from './edges';
import type { Graph, GraphNode, GraphSwitch, Variable } from './model';

/** What a palette entry carries onto the canvas. */
export interface SandboxRef {
  uuid: string;
  name: string;
  owner: string;
  variables: Variable[];
}

/**
 * A sandbox dropped at (x, y): a new node named after it, with its variables as defaults. The
 * name gets a suffix when another node already has it (names are unique in a workflow).
 */
export function addNode(graph: Graph, sandbox: SandboxRef, at: { x: number; y: number }, id: string): Graph {
  const node: GraphNode = {
    id,
    name: uniqueName(graph, nodeName(sandbox.name) || 'sandbox'),
    x: at.x,
    y: at.y,
    src_id: sandbox.uuid,
    owner: sandbox.owner,
    continueOnFail: false,
    variables: sandbox.variables.map((v) => ({ ...v })),
  };
  return withStartEdges({ ...graph, nodes: [...graph.nodes, node] });
}

/** Node names are what the runner calls its steps: letters, digits and underscores. */
export const nodeName = (typed: string) => typed.replace(/[^A-Za-z0-9_]/g, '_');

export function uniqueName(graph: Graph, name: string): string {
  const taken = new Set(graph.nodes.map((n) => n.name));
  if (!taken.has(name)) return name;
  for (let i = 2; ; i++) if (!taken.has(`${name}_${i}`)) return `${name}_${i}`;
}

export function addSwitch(graph: Graph, at: { x: number; y: number }, id: string): Graph {
  const item: GraphSwitch = { id, x: at.x, y: at.y };
  return { ...graph, switches: [...graph.switches, item] };
}

/** Node settings: name, variables, continue on fail. */
export function updateNode(
  graph: Graph,
  id: string,
  patch: Pick<Partial<GraphNode>, 'name' | 'variables' | 'continueOnFail'>,
): Graph {
  return { ...graph, nodes: graph.nodes.map((n) => (n.id === id ? { ...n, ...patch } : n)) };
}

/** New positions by id (a drag, or a layout); unknown ids are ignored. */
export function moveItems(graph: Graph, positions: ReadonlyMap<string, { x: number; y: number }>): Graph {
  const place = <T extends { id: string; x: number; y: number }>(item: T): T => {
    const at = positions.get(item.id);
    return at && (at.x !== item.x || at.y !== item.y) ? { ...item, x: at.x, y: at.y } : item;
  };
  return { ...graph, nodes: graph.nodes.map(place), switches: graph.switches.map(place) };
}
