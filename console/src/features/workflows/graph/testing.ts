// Fixture factories for the graph tests.
import { withStartEdges } from './edges';
import type { Graph, GraphNode, GraphSwitch } from './model';

export const aNode = (id: string, patch: Partial<GraphNode> = {}): GraphNode => ({
  id,
  name: id,
  x: 0,
  y: 0,
  src_id: `sandbox-${id}`,
  owner: 'u1',
  continueOnFail: false,
  variables: [],
  ...patch,
});

export const aSwitch = (id: string, patch: Partial<GraphSwitch> = {}): GraphSwitch => ({
  id,
  x: 0,
  y: 0,
  ...patch,
});

/** A graph of nodes and switches joined by 'a->b' single edges (ids starting with s are switches). */
export function aGraph(ids: string[], links: string[] = []): Graph {
  const switches = ids.filter((id) => id.startsWith('s')).map((id) => aSwitch(id));
  const nodes = ids.filter((id) => !id.startsWith('s')).map((id) => aNode(id));
  const edges = links.map((link) => {
    const [from, to] = link.split('->') as [string, string];
    const type = to.startsWith('s') ? 'switchInput' : from.startsWith('s') ? 'switchOutput' : 'single';
    return { id: link, from, to, type } as const;
  });
  return withStartEdges({ nodes, switches, edges: [...edges] });
}
