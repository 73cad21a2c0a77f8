import {
  START_NODE_ID,
  normalizeGraph,
  type NormalizedEdge,
  validateWorkflow,
  type Sandbox,
  type ValidationIssue,
  type Workflow,
  type WorkflowEdge,
  type WorkflowNode,
  type WorkflowRule,
  type WorkflowSpec,
  type WorkflowSwitch,
} from '@sandflow/crds';
import { badRequest } from '../errors.js';

// The console's graph (spec 2 §3 Graph) ⇄ the Workflow CR. The CR keeps what was saved and
// nothing more: optional fields stay absent unless given, positions live in the nodes' and
// switches' x/y (none for a workflow applied without them: served as null, the editor lays it
// out), so a GET answer sent back with PUT leaves the spec as it was and a saved workflow
// re-applies with `kubectl apply` unchanged.

export interface GraphVariable {
  name: string;
  value: string;
}

export interface GraphNode {
  id: string;
  name: string;
  x?: number | null | undefined;
  y?: number | null | undefined;
  /** The Sandbox's metadata.name. */
  src_id: string;
  /** Ignored on input: a node's owner is its sandbox's. */
  owner?: string | undefined;
  continueOnFail?: boolean | undefined;
  variables?: GraphVariable[] | undefined;
}

export interface GraphSwitch {
  id: string;
  x?: number | null | undefined;
  y?: number | null | undefined;
}

export interface GraphEdge {
  id: string;
  from: string;
  to: string;
  type?: WorkflowEdge['type'];
  condition?: WorkflowEdge['condition'];
  switchCondition?: WorkflowEdge['switchCondition'];
  instanceType?: WorkflowEdge['instanceType'];
  instanceInput?: string | undefined;
  instanceNumber?: number | undefined;
}

export interface GraphBody {
  nodes: GraphNode[];
  switches?: GraphSwitch[] | undefined;
  edges?: GraphEdge[] | undefined;
}

const position = (v: number | undefined) => (v === undefined ? null : v);

/** The graph of a stored workflow, as the editor reads it (edge types made explicit, ids given). */
export function graphOf(spec: WorkflowSpec, ownerOfSandbox: (node: WorkflowNode) => string | undefined) {
  const derived = normalizeGraph(spec).edges;
  return {
    nodes: (spec.nodes ?? []).map((n) => ({
      id: n.id,
      name: n.name,
      x: position(n.x),
      y: position(n.y),
      src_id: n.sandbox ?? '',
      owner: n.owner ?? ownerOfSandbox(n) ?? '',
      continueOnFail: n.continueOnFail ?? false,
      variables: (n.variables ?? []).map((v) => ({ name: v.name, value: v.value ?? '' })),
    })),
    switches: (spec.switches ?? []).map((s) => ({ id: s.id, x: position(s.x), y: position(s.y) })),
    edges: (spec.edges ?? []).map((e, i) => {
      const edge: GraphEdge & { type: NonNullable<GraphEdge['type']> } = {
        id: e.id ?? `edge-${i}`,
        from: e.from,
        to: e.to,
        type: e.type ?? derived[i]!.type,
      };
      if (e.condition !== undefined) edge.condition = e.condition;
      if (e.switchCondition !== undefined) edge.switchCondition = e.switchCondition;
      if (e.instanceType !== undefined) edge.instanceType = e.instanceType;
      if (e.instanceInput !== undefined) edge.instanceInput = e.instanceInput;
      if (e.instanceNumber !== undefined) edge.instanceNumber = e.instanceNumber;
      return edge;
    }),
  };
}

/**
 * The saved workflow's `sandboxes` (spec 2 §3): one entry per node, its links to the nodes it
 * feeds (multi edges split, by line or by file of `file`) and, through a switch, the condition
 * under which each successor runs.
 */
export function sandboxEntriesOf(spec: WorkflowSpec, owners: (node: WorkflowNode) => string | undefined) {
  const graph = normalizeGraph(spec);
  // Edges by source, once: thousands of nodes times thousands of edges otherwise.
  const out = new Map<string, NormalizedEdge[]>();
  for (const e of graph.edges) {
    const list = out.get(e.from);
    if (list) list.push(e);
    else out.set(e.from, [e]);
  }
  const from = (id: string) => out.get(id) ?? [];
  return graph.nodes.map((n) => ({
    sandbox_id: n.id,
    sandbox_name: n.name,
    owner: n.owner ?? owners(n) ?? '',
    sandbox_db: n.sandbox ?? '',
    continue_on_fail: n.continueOnFail ?? false,
    variables: (n.variables ?? []).map((v) => ({ name: v.name, value: v.value ?? '' })),
    linked_to: from(n.id)
      .filter((e) => e.type === 'single' || e.type === 'multi')
      .map((e) => ({
        destination: e.to,
        splitter: e.type === 'multi',
        file: e.instanceInput ?? '',
        option: e.type === 'multi' ? (e.instanceType ?? 'line') : '',
      })),
    conditions: from(n.id)
      .filter((e) => e.type === 'switchInput')
      .flatMap((input) => from(input.to).filter((e) => e.type === 'switchOutput'))
      .map((e) => ({ destination: e.to, condition: e.switchCondition ?? 'success' })),
  }));
}

/** The CR's graph from the editor's, keeping only what was given. */
export function graphSpec(
  body: GraphBody,
  previous: WorkflowSpec | undefined,
  namespace: string,
  ownerOf: (sandbox: string) => string | undefined,
): Pick<WorkflowSpec, 'nodes' | 'switches' | 'edges'> {
  const before = new Map((previous?.nodes ?? []).map((n) => [n.id, n]));
  const nodes = body.nodes.map((n): WorkflowNode => {
    const node: WorkflowNode = { id: n.id, name: n.name };
    if (n.src_id) node.sandbox = n.src_id;
    // A kubectl-written node may name its own namespace; kept as long as it is the workflow's.
    const old = before.get(n.id);
    if (old?.sandboxNamespace === namespace && old.sandbox === n.src_id) node.sandboxNamespace = namespace;
    const owner = n.src_id ? ownerOf(n.src_id) : undefined;
    if (owner) node.owner = owner;
    if (typeof n.x === 'number') node.x = n.x;
    if (typeof n.y === 'number') node.y = n.y;
    if (n.continueOnFail) node.continueOnFail = true;
    // A row with no name is an empty row of the form, not a variable (the CRD refuses it).
    const variables = (n.variables ?? []).filter((v) => v.name !== '');
    if (variables.length) node.variables = variables.map((v) => ({ name: v.name, value: v.value }));
    return node;
  });
  const switches = (body.switches ?? []).map((s): WorkflowSwitch => {
    const out: WorkflowSwitch = { id: s.id };
    if (typeof s.x === 'number') out.x = s.x;
    if (typeof s.y === 'number') out.y = s.y;
    return out;
  });
  const edges = (body.edges ?? []).map((e): WorkflowEdge => {
    const out: WorkflowEdge = { id: e.id, from: e.from, to: e.to };
    for (const key of ['type', 'condition', 'switchCondition', 'instanceType', 'instanceInput'] as const)
      if (e[key] !== undefined) (out as Record<string, unknown>)[key] = e[key];
    if (e.instanceNumber !== undefined) out.instanceNumber = e.instanceNumber;
    return out;
  });
  const spec: Pick<WorkflowSpec, 'nodes' | 'switches' | 'edges'> = { nodes };
  if (switches.length) spec.switches = switches;
  if (edges.length) spec.edges = edges;
  return spec;
}

/**
 * Rules a save refuses (nothing is written): what the editor never draws. The others — a switch
 * without its one input, a second multi edge into a node, a sandbox the owner may not execute —
 * are saved and reported by the operator as the workflow's validity, as `kubectl describe` shows.
 */
const REFUSED: ReadonlySet<WorkflowRule> = new Set<WorkflowRule>([
  'emptyName',
  'emptyVariables',
  'duplicateSandbox',
  'noAttributes',
  'sameSourceDestination',
  'cycle',
  'unknownEndpoint',
  'edgeIntoStart',
  'noNodes',
]);

const where = (issue: ValidationIssue) =>
  issue.edgeId !== undefined
    ? `edges.${issue.edgeId}`
    : issue.nodeId !== undefined
      ? `nodes.${issue.nodeId}`
      : issue.code === 'emptyName'
        ? 'name'
        : 'nodes';

/**
 * Spec 2 §5 on save, with the operator's own validation function and wording: a 400 naming the
 * first problem (`edges.e3: The current edge would create a cycle in the workflow`). Sandboxes
 * are resolved among those the caller can reach in the organization only: another
 * organization's id is unknown here, named and nothing more.
 */
export function checkSave(spec: WorkflowSpec, resolve: (id: string) => Sandbox | undefined): void {
  for (const node of spec.nodes ?? [])
    if (node.sandbox && !resolve(node.sandbox))
      throw badRequest(`nodes.${node.id}: unknown sandbox ${node.sandbox}`, 'invalid_workflow');
  const ids = new Set<string>([START_NODE_ID]);
  for (const item of [...(spec.nodes ?? []), ...(spec.switches ?? [])]) {
    if (ids.has(item.id))
      throw badRequest(`nodes.${item.id}: two items of the graph have this id`, 'invalid_workflow');
    ids.add(item.id);
  }
  const issue = validateWorkflow(spec).issues.find((i) => REFUSED.has(i.code));
  if (issue) throw badRequest(`${where(issue)}: ${issue.message}`, 'invalid_workflow');
}

const EMPTY_VALUES = "Can't save with empty values.";

/** The popover's rule (spec 2 §5): every variable has a name and a value. */
export function checkVariables(variables: GraphVariable[]): void {
  variables.forEach((v, i) => {
    for (const field of ['name', 'value'] as const)
      if (!v[field]) throw badRequest(`variables.${i}.${field}: ${EMPTY_VALUES}`, 'invalid_workflow');
  });
}

/** Validity as the operator last saw it: null while it has not reconciled the current generation. */
export function validityOf(o: Workflow) {
  const status = o.status;
  const current =
    status?.valid !== undefined &&
    (status.observedGeneration === undefined ||
      o.metadata.generation === undefined ||
      status.observedGeneration >= o.metadata.generation);
  if (!current) return { valid: null, message: '', errors: [] };
  const condition = status.conditions?.find((c) => c.type === 'Valid');
  return {
    valid: status.valid!,
    message: condition?.message ?? '',
    errors: (status.errors ?? []).map((e) => ({
      code: e.code ?? '',
      message: e.message,
      node_id: e.nodeId ?? '',
      edge_id: e.edgeId ?? '',
    })),
  };
}
