// The workflow graph of spec 2 §3 (node, switch, edge) as the editor keeps it. Field names are the
// spec's; the API stores them in the Workflow resource unchanged.

export interface Variable {
  name: string;
  value: string;
}

export interface GraphNode {
  id: string;
  name: string;
  x: number;
  y: number;
  /** The sandbox's stored id (its uuid). */
  src_id: string;
  /** The sandbox owner's user id. */
  owner: string;
  continueOnFail: boolean;
  variables: Variable[];
}

export interface GraphSwitch {
  id: string;
  x: number;
  y: number;
}

export type EdgeType = 'single' | 'multi' | 'switchInput' | 'switchOutput' | 'start';
export type SwitchCondition = 'success' | 'fail';
export type InstanceType = 'line' | 'file';

export interface GraphEdge {
  id: string;
  from: string;
  to: string;
  type: EdgeType;
  condition?: 'primary' | 'starting';
  switchCondition?: SwitchCondition;
  instanceType?: InstanceType;
  instanceInput?: string;
  instanceNumber?: number;
}

export interface Graph {
  nodes: GraphNode[];
  switches: GraphSwitch[];
  edges: GraphEdge[];
}

/** Id of the starting point; start edges leave from it (the same id the operator uses). */
export const START_ID = 'start';

export const EMPTY_GRAPH: Graph = { nodes: [], switches: [], edges: [] };

/** Spec 2 §9: layout sizes and spacing, undo depth, form debounce. */
export const NODE_SIZE = 85;
export const SWITCH_SIZE = 50;
export const LAYER_SPACING = 220;
export const VERTICAL_SPACING = 150;
export const HISTORY_LIMIT = 90;
export const FORM_DEBOUNCE_MS = 500;
export const DEFAULT_VERSION = '1.0.0';
export const DEFAULT_INSTANCE_NUMBER = 1;

export const isSwitch = (graph: Graph, id: string) => graph.switches.some((s) => s.id === id);
export const isNode = (graph: Graph, id: string) => graph.nodes.some((n) => n.id === id);
