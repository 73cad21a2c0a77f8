// The runner's names for Argo's Workflow / CronWorkflow model (the typed library's, through
// @sandflow/kube) and the pure helpers of Argo's controller it reproduces: node ids, durations.
import { createHash } from 'node:crypto';
import {
  FINAL_NODE_PHASES,
  type ArgoArtifact,
  type ArgoDagTask,
  type ArgoDagTemplate,
  type ArgoNode,
  type ArgoParameter,
  type ArgoScriptTemplate,
  type ArgoTemplate,
  type ArgoWorkflow as LibraryWorkflow,
  type ArgoWorkflowSpec,
  type ArgoWorkflowStatus,
  type CronWorkflow as LibraryCronWorkflow,
  type CronWorkflowSpec as LibraryCronWorkflowSpec,
} from '@sandflow/kube';

// The library's types with the fields Argo's controller always fills (and the runner relies on)
// made required; each is assignable to the library's own type.
type With<T, K extends keyof T> = T & { [P in K]-?: NonNullable<T[P]> };

export type NodePhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Error' | 'Skipped' | 'Omitted';
export type NodeType = 'Pod' | 'DAG' | 'Retry' | 'TaskGroup' | 'Skipped' | 'Suspend';
export type WorkflowPhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Error';
export type Parameter = ArgoParameter;
export type Artifact = ArgoArtifact;
export type DagTask = With<ArgoDagTask, 'template'>;
export type Template = With<Omit<ArgoTemplate, 'dag' | 'script'>, 'name'> & {
  dag?: Omit<ArgoDagTemplate, 'tasks'> & { tasks: DagTask[] };
  script?: With<ArgoScriptTemplate, 'source'>;
};
export type WorkflowSpec = With<Omit<ArgoWorkflowSpec, 'templates'>, 'entrypoint'> & {
  templates: Template[];
};
export type NodeStatus = With<ArgoNode, 'displayName'> & { phase: NodePhase; type: NodeType };
export type WorkflowStatus = Omit<ArgoWorkflowStatus, 'nodes' | 'phase'> & {
  phase?: WorkflowPhase;
  nodes?: Record<string, NodeStatus>;
};
export type ArgoWorkflow = Omit<LibraryWorkflow, 'spec' | 'status'> & {
  spec: WorkflowSpec;
  status?: WorkflowStatus;
};
export type CronWorkflow = Omit<LibraryCronWorkflow, 'spec'> & {
  spec: Omit<LibraryCronWorkflowSpec, 'workflowSpec'> & { workflowSpec: WorkflowSpec };
};

/** 32-bit FNV-1a of a string's UTF-8 bytes (Go's hash/fnv New32a). */
export function fnv32a(s: string): number {
  let h = 0x811c9dc5;
  for (const b of Buffer.from(s, 'utf8')) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** Argo's deterministic node id: the workflow name for the root, else `<workflow>-<fnv32a(node name)>`. */
export function nodeId(workflowName: string, nodeName: string): string {
  return nodeName === workflowName ? workflowName : `${workflowName}-${fnv32a(nodeName)}`;
}

export const isFinal = (phase: string | undefined) => phase !== undefined && FINAL_NODE_PHASES.has(phase);

/** Go-style durations ("10s", "1m30s", "2h") or plain seconds → milliseconds. */
export function durationMs(d: string | number | undefined): number {
  if (d === undefined || d === '') return 0;
  if (typeof d === 'number' || /^[0-9.]+$/.test(d)) return Number(d) * 1000;
  let total = 0;
  for (const m of d.matchAll(/([0-9.]+)(ms|s|m|h)/g)) {
    const n = Number(m[1]);
    total += m[2] === 'ms' ? n : m[2] === 's' ? n * 1000 : m[2] === 'm' ? n * 60_000 : n * 3_600_000;
  }
  return total;
}

export const shortHash = (s: string) => createHash('sha1').update(s).digest('hex').slice(0, 8);
