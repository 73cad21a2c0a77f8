// The slice of Argo's Workflow / CronWorkflow model the local runner reads and writes. Field names
// follow argoproj.io/v1alpha1 exactly, so the operator cannot tell the runner from Argo's controller.
import { createHash } from 'node:crypto';

export const ARGO_GROUP = 'argoproj.io';
export const ARGO_VERSION = 'v1alpha1';
export const CRON_LABEL = 'workflows.argoproj.io/cron-workflow';

export type NodePhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Error' | 'Skipped' | 'Omitted';
export type NodeType = 'Pod' | 'DAG' | 'Retry' | 'TaskGroup' | 'Skipped' | 'Suspend';
export type WorkflowPhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Error';

export interface Parameter {
  name: string;
  value?: string;
}
export interface Artifact {
  name: string;
  path?: string;
  s3?: { key: string };
}
export interface Outputs {
  exitCode?: string;
  result?: string;
  parameters?: Parameter[];
  artifacts?: Artifact[];
}

export interface NodeStatus {
  id: string;
  name: string;
  displayName: string;
  type: NodeType;
  templateName?: string;
  phase: NodePhase;
  boundaryID?: string;
  message?: string;
  startedAt?: string;
  finishedAt?: string;
  children?: string[];
  outboundNodes?: string[];
  inputs?: { parameters?: Parameter[] };
  outputs?: Outputs;
  progress?: string;
  hostNodeName?: string;
  resourcesDuration?: Record<string, number>;
}

export interface EnvVar {
  name: string;
  value?: string;
}
export interface Container {
  name?: string;
  image?: string;
  command?: string[];
  args?: string[];
  env?: EnvVar[];
  workingDir?: string;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  volumeMounts?: { name: string; mountPath: string }[];
}
export interface ScriptTemplate extends Container {
  source: string;
}
export interface DagTask {
  name: string;
  template: string;
  depends?: string;
  dependencies?: string[];
  when?: string;
  continueOn?: { failed?: boolean; error?: boolean };
  withParam?: string;
  withItems?: unknown[];
  arguments?: { parameters?: Parameter[] };
}
export interface RetryStrategy {
  limit?: number | string;
  retryPolicy?: 'Always' | 'OnFailure' | 'OnError' | 'OnTransientError';
  backoff?: { duration?: string; factor?: number | string; maxDuration?: string };
}
export interface Template {
  name: string;
  inputs?: { parameters?: Parameter[] };
  container?: Container;
  script?: ScriptTemplate;
  dag?: { tasks: DagTask[]; failFast?: boolean };
  suspend?: { duration?: string };
  retryStrategy?: RetryStrategy;
  activeDeadlineSeconds?: number | string;
  metadata?: { labels?: Record<string, string> };
}
export interface WorkflowSpec {
  entrypoint: string;
  templates: Template[];
  arguments?: { parameters?: Parameter[] };
  suspend?: boolean;
  shutdown?: 'Stop' | 'Terminate' | '';
  activeDeadlineSeconds?: number;
  [k: string]: unknown;
}
export interface ObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  ownerReferences?: {
    apiVersion: string;
    kind: string;
    name: string;
    uid: string;
    controller?: boolean;
    blockOwnerDeletion?: boolean;
  }[];
}
export interface WorkflowStatus {
  phase?: WorkflowPhase;
  startedAt?: string;
  finishedAt?: string;
  progress?: string;
  message?: string;
  nodes?: Record<string, NodeStatus>;
  estimatedDuration?: number;
  resourcesDuration?: Record<string, number>;
}
export interface ArgoWorkflow {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec: WorkflowSpec;
  status?: WorkflowStatus;
}
export interface CronWorkflowSpec {
  schedules?: string[];
  schedule?: string;
  timezone?: string;
  concurrencyPolicy?: 'Allow' | 'Forbid' | 'Replace';
  startingDeadlineSeconds?: number;
  suspend?: boolean;
  when?: string;
  workflowMetadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  workflowSpec: WorkflowSpec;
}
export interface CronWorkflowStatus {
  active?: { apiVersion?: string; kind?: string; name: string; namespace?: string; uid?: string }[];
  lastScheduledTime?: string;
  conditions?: { type: string; status: string; message?: string }[];
  phase?: string;
  succeeded?: number;
  failed?: number;
}
export interface CronWorkflow {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec: CronWorkflowSpec;
  status?: CronWorkflowStatus;
}

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

export const FINAL_PHASES: ReadonlySet<string> = new Set([
  'Succeeded',
  'Failed',
  'Error',
  'Skipped',
  'Omitted',
]);
export const isFinal = (phase: string | undefined) => phase !== undefined && FINAL_PHASES.has(phase);

/** Kubernetes quantities → millicores (cpu) or MiB (memory, storage). */
export function cpuMillis(q: string | undefined): number {
  if (!q) return 0;
  const s = String(q).trim();
  if (s.endsWith('m')) return Number(s.slice(0, -1));
  return Math.round(Number(s) * 1000);
}
const UNITS: Record<string, number> = {
  Ki: 1 / 1024,
  Mi: 1,
  Gi: 1024,
  Ti: 1024 * 1024,
  k: 1000 / 1048576,
  K: 1000 / 1048576,
  M: 1e6 / 1048576,
  G: 1e9 / 1048576,
  T: 1e12 / 1048576,
};
export function memoryMiB(q: string | undefined): number {
  if (!q) return 0;
  const m = /^([0-9.]+)([A-Za-z]*)$/.exec(String(q).trim());
  if (!m) return 0;
  const n = Number(m[1]);
  if (!m[2]) return n / 1048576;
  return n * (UNITS[m[2]] ?? 1);
}

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
