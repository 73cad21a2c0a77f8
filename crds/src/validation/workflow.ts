// Workflow validation (spec 2 §5) as pure functions shared by the API (on save), the operator
// (status.valid + condition Valid) and the console (before save).
import type { Sandbox, WorkflowSpec, WorkflowStatus } from '../generated/types.gen.js';
import { START_NODE_ID, type Condition, type WorkflowNode } from '../types.js';
import { normalizeGraph, topologicalOrder, type NormalizedGraph } from './graph.js';

/** The product's exact texts (spec 2 §5 and §8), plus Sandflow's own for rules the spec leaves implicit. */
export const WORKFLOW_MESSAGES = {
  emptyName: 'Please, enter a valid workflow name',
  emptyVariables: 'You have empty fields on environment variables',
  duplicateSandbox: 'Find two or more sandbox with the same name',
  noAttributes: 'This sandbox has no attributes',
  invalidEdgeTitle: 'Invalid edge creation',
  sameSourceDestination: 'Source and destination are the same',
  cycle: 'The current edge would create a cycle in the workflow',
  noNodes: 'The workflow has no sandboxes',
  unknownEndpoint: 'The edge refers to a missing sandbox or switch',
  switchInput: 'A switch needs exactly one input coming from a sandbox',
  switchOutput: 'A switch output must go to a sandbox',
  edgeIntoStart: 'No edge can enter the starting point',
  multipleMulti: 'A sandbox can receive at most one multi edge',
  sandboxNotFound: 'The sandbox does not exist',
  sandboxNotExecutable: 'The workflow owner is not allowed to execute this sandbox',
} as const;

export type WorkflowRule = keyof typeof WORKFLOW_MESSAGES;

export interface ValidationIssue {
  code: WorkflowRule;
  message: string;
  nodeId?: string;
  edgeId?: string;
}

export interface Executor {
  /** User id (the workflow owner). */
  id: string;
  /** Group ids the user belongs to. */
  groups?: string[];
}

export interface WorkflowValidationContext {
  /**
   * Looks the Sandbox of a node up. When given, a node whose sandbox is missing is invalid and the
   * executor must be allowed to execute it. When omitted, sandbox references are not checked.
   */
  resolveSandbox?: (node: WorkflowNode) => Sandbox | undefined;
  /** Who executes the workflow (its owner). Defaults to spec.owner with no groups. */
  executor?: Executor;
  /** Time written into condition lastTransitionTime. */
  now?: Date;
  /** metadata.generation, copied to observedGeneration. */
  generation?: number;
}

export interface WorkflowValidationResult {
  valid: boolean;
  issues: ValidationIssue[];
  graph: NormalizedGraph;
  /** Node ids in topological order (empty when the graph has a cycle). */
  order: string[];
  /** A status patch for the Workflow: valid, phase, errors, conditions, observedGeneration. */
  status: WorkflowStatus;
}

/** May the user run this sandbox? Owner, or execute permission for one of the user's groups or _public. */
export function mayExecute(sandbox: Sandbox, user: Executor): boolean {
  if (sandbox.spec.owner !== undefined && sandbox.spec.owner === user.id) return true;
  const perms = sandbox.spec.permissions ?? {};
  if (perms['_public']?.execute) return true;
  return (user.groups ?? []).some((g) => perms[g]?.execute === true);
}

/**
 * Validates a workflow. Rules: non-empty name; every variable with a name has a value; unique sandbox
 * names; nodes with their attributes; no self edge; no cycle (the edge closing one is reported);
 * well-formed switches (outputs default to success then fail); start edges for nodes without
 * incoming edges; referenced sandboxes exist and the owner may execute them.
 */
export function validateWorkflow(
  spec: WorkflowSpec,
  ctx: WorkflowValidationContext = {},
): WorkflowValidationResult {
  const issues: ValidationIssue[] = [];
  const add = (code: WorkflowRule, extra: Omit<ValidationIssue, 'code' | 'message'> = {}) =>
    issues.push({ code, message: WORKFLOW_MESSAGES[code], ...extra });

  if (!spec.name || spec.name.trim() === '') add('emptyName');

  const nodes = spec.nodes ?? [];
  if (nodes.length === 0) add('noNodes');

  const seenNames = new Set<string>();
  let duplicate = false;
  for (const node of nodes) {
    if (!node.name || !node.sandbox) add('noAttributes', { nodeId: node.id });
    if ((node.variables ?? []).some((v) => v.name !== '' && (v.value === undefined || v.value === '')))
      add('emptyVariables', { nodeId: node.id });
    if (node.name) {
      if (seenNames.has(node.name) && !duplicate) {
        duplicate = true;
        add('duplicateSandbox', { nodeId: node.id });
      }
      seenNames.add(node.name);
    }
  }

  const graph = normalizeGraph(spec);
  const isVertex = (id: string) => graph.nodeById.has(id) || graph.switchById.has(id);
  const switchInputs = new Map<string, number>();
  const multiInto = new Set<string>();
  for (const e of graph.edges) {
    if (e.from === e.to) {
      add('sameSourceDestination', { edgeId: e.id });
      continue;
    }
    if (e.to === START_NODE_ID) {
      add('edgeIntoStart', { edgeId: e.id });
      continue;
    }
    if ((e.from !== START_NODE_ID && !isVertex(e.from)) || !isVertex(e.to)) {
      add('unknownEndpoint', { edgeId: e.id });
      continue;
    }
    if (e.type === 'start' && !graph.nodeById.has(e.to)) add('unknownEndpoint', { edgeId: e.id });
    if (e.type === 'switchInput') {
      if (!graph.nodeById.has(e.from)) add('switchInput', { edgeId: e.id });
      switchInputs.set(e.to, (switchInputs.get(e.to) ?? 0) + 1);
    }
    if (e.type === 'switchOutput' && !graph.nodeById.has(e.to)) add('switchOutput', { edgeId: e.id });
    if (e.type === 'multi') {
      if (multiInto.has(e.to)) add('multipleMulti', { edgeId: e.id, nodeId: e.to });
      multiInto.add(e.to);
    }
  }
  for (const s of graph.switches) {
    if (switchInputs.get(s.id) !== 1) add('switchInput', { nodeId: s.id });
  }

  let order = topologicalOrder(graph);
  if (!order) {
    for (const edgeId of edgesClosingCycles(graph)) add('cycle', { edgeId });
    order = [];
  }

  if (ctx.resolveSandbox) {
    const executor = ctx.executor ?? { id: spec.owner ?? '', groups: [] };
    for (const node of nodes) {
      if (!node.sandbox) continue;
      const sandbox = ctx.resolveSandbox(node);
      if (!sandbox) add('sandboxNotFound', { nodeId: node.id });
      else if (!mayExecute(sandbox, executor)) add('sandboxNotExecutable', { nodeId: node.id });
    }
  }

  const valid = issues.length === 0;
  return { valid, issues, graph, order, status: workflowStatus(valid, issues, ctx) };
}

/** Adds edges one by one, as the editor does, and returns those that would close a cycle. */
function edgesClosingCycles(graph: NormalizedGraph): string[] {
  const out = new Map<string, string[]>();
  const closing: string[] = [];
  const reaches = (from: string, target: string): boolean => {
    const stack = [from];
    const seen = new Set<string>([from]);
    while (stack.length) {
      const v = stack.pop()!;
      if (v === target) return true;
      for (const w of out.get(v) ?? []) {
        if (!seen.has(w)) {
          seen.add(w);
          stack.push(w);
        }
      }
    }
    return false;
  };
  for (const e of graph.edges) {
    if (e.type === 'start' || e.from === e.to) continue;
    if (reaches(e.to, e.from)) {
      closing.push(e.id);
      continue;
    }
    const list = out.get(e.from);
    if (list) list.push(e.to);
    else out.set(e.from, [e.to]);
  }
  return closing;
}

function workflowStatus(
  valid: boolean,
  issues: ValidationIssue[],
  ctx: WorkflowValidationContext,
): WorkflowStatus {
  const condition: Condition = {
    type: 'Valid',
    status: valid ? 'True' : 'False',
    reason: valid ? 'GraphValid' : 'ValidationFailed',
    message: valid
      ? 'The workflow passed every validation rule'
      : [...new Set(issues.map((i) => i.message))].join('; '),
  };
  if (ctx.now) condition.lastTransitionTime = ctx.now.toISOString();
  if (ctx.generation !== undefined) condition.observedGeneration = ctx.generation;
  const status: WorkflowStatus = {
    valid,
    phase: valid ? 'Valid' : 'Invalid',
    errors: issues.map((i) => ({ ...i })),
    conditions: [condition],
  };
  if (ctx.generation !== undefined) status.observedGeneration = ctx.generation;
  return status;
}
