// The canvas's editing actions over the graph, shared by the context menus and the keyboard.
import { connect, merge, removeItems, split } from './graph/edges';
import { addSwitch } from './graph/items';
import { LAYER_SPACING, NODE_SIZE, SWITCH_SIZE, type Graph } from './graph/model';
import { toastRefusedEdge } from './edgeToast';

export const newId = () => crypto.randomUUID();

/** Adds the arrow, or says why not and leaves the graph as it was. */
/** The graph with the arrow, or unchanged when it is refused. Pure: React may run a reducer twice. */
export function arrow(graph: Graph, from: string, to: string, multi: boolean): Graph {
  const result = connect(graph, from, to, multi);
  return 'refused' in result ? graph : result.graph;
}

/** Whether the arrow is refused, saying why in a toast (spec 2 §5); call it outside reducers. */
export function refuseArrow(graph: Graph, from: string, to: string, multi: boolean): boolean {
  const result = connect(graph, from, to, multi);
  if (!('refused' in result)) return false;
  toastRefusedEdge(result.refused);
  return true;
}

/** 'Switch' on a sandbox: a new switch one layer to its right, fed by it. */
export function switchAfter(graph: Graph, nodeId: string, id = newId()): Graph {
  const node = graph.nodes.find((n) => n.id === nodeId);
  if (!node) return graph;
  const at = { x: node.x + LAYER_SPACING, y: node.y + (NODE_SIZE - SWITCH_SIZE) / 2 };
  return arrow(addSwitch(graph, at, id), nodeId, id, false);
}

export const remove = (graph: Graph, ids: string[]) => removeItems(graph, ids);
export { merge, split };
