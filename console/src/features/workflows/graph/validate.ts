// The checks Save runs before calling the API (spec 2 §5); the texts are in the workflows dictionary.
import type { Graph } from './model';

export type SaveProblem = 'emptyName' | 'emptyVariables' | 'duplicateSandbox' | 'noAttributes' | 'noNodes';

/** The first problem keeping the workflow from being saved, or null. */
export function saveProblem(name: string, graph: Graph): SaveProblem | null {
  if (name.trim() === '') return 'emptyName';
  if (graph.nodes.length === 0) return 'noNodes';
  if (graph.nodes.some((n) => !n.src_id || n.name.trim() === '')) return 'noAttributes';
  if (graph.nodes.some((n) => n.variables.some((v) => v.name.trim() !== '' && v.value.trim() === '')))
    return 'emptyVariables';
  const names = new Set<string>();
  for (const n of graph.nodes) {
    if (names.has(n.name.trim())) return 'duplicateSandbox';
    names.add(n.name.trim());
  }
  return null;
}
