// Argo's node tree → the Run status in product terms (spec 2 §3–§4): per-sandbox statuses with
// dynamic instances (sub_sandbox), history entries on every change, start/stop times, outputs and
// billing records (spec 2 §9) for every finished step.
import type { Run, RunStatus, SandboxRunStatus } from '@sandflow/crds';
import { LABELS, cpuMillis, memoryMiB, stepTaskName, type ArgoNode, type ArgoWorkflow } from '@sandflow/kube';
import { billingAmount, machineFor } from './billing.js';

export type ProductStatus = NonNullable<SandboxRunStatus['status']>;
type SubStatus = NonNullable<NonNullable<SandboxRunStatus['subSandboxes']>[number]['status']>;
type History = NonNullable<RunStatus['history']>[number];
type Billing = NonNullable<RunStatus['billing']>[number];
type Output = NonNullable<RunStatus['outputs']>[number];

export const FINAL_RUN_PHASES = new Set(['COMPLETED', 'ERROR', 'STOPPED']);
export const ACTIVE_RUN_PHASES = new Set(['INIT', 'RUNNING', 'PAUSED']);
const MAX_OUTPUTS = 1000;

export function productOf(phase: string | undefined): ProductStatus {
  switch (phase) {
    case 'Pending':
      return 'INIT';
    case 'Running':
      return 'RUNNING';
    case 'Succeeded':
      return 'COMPLETED';
    case 'Failed':
    case 'Error':
      return 'ERROR';
    case 'Skipped':
    case 'Omitted':
      return 'SKIPPING';
    default:
      return 'WAITING';
  }
}

/**
 * The log of a task's latest execution: its own main-logs artifact, or that of the last
 * attempt below a Retry node (a Pod's `children` are the next tasks, so only a Retry's
 * attempts, named `task(n)`, are searched).
 */
function logOf(n: ArgoNode, nodes: Record<string, ArgoNode>): string | undefined {
  const own = n.outputs?.artifacts?.find((a) => a.name === 'main-logs');
  if (own) return own.s3?.key ?? own.path;
  if (n.type !== 'Retry') return undefined;
  const attempts = (n.children ?? [])
    .map((c) => nodes[c])
    .filter((c): c is ArgoNode => !!c && c.name.startsWith(`${n.name}(`));
  for (const a of attempts.reverse()) {
    const found = logOf(a, nodes);
    if (found) return found;
  }
  return undefined;
}

function subOf(n: ArgoNode): SubStatus {
  if (n.phase === 'Pending' || (n.type === 'Retry' && !n.phase)) {
    return /Insufficient|Unschedulable/.test(n.message ?? '') ? 'QUEUED' : 'SCHEDULED';
  }
  return productOf(n.phase);
}

/** Status of a task node, looking through Retry nodes at the current attempt. */
function taskStatus(n: ArgoNode, nodes: Record<string, ArgoNode>): ProductStatus {
  if (n.type === 'Retry' && n.phase === 'Running') {
    const last = n.children?.length ? nodes[n.children[n.children.length - 1]!] : undefined;
    if (!last || last.phase === 'Pending') return 'INIT';
    return 'RUNNING';
  }
  if (n.type === 'TaskGroup' && n.phase === 'Running') {
    const kids = (n.children ?? []).map((c) => nodes[c]).filter((c): c is ArgoNode => !!c);
    return kids.some((k) => k.phase === 'Running' || (k.type === 'Retry' && k.phase === 'Running'))
      ? 'RUNNING'
      : 'INIT';
  }
  return productOf(n.phase);
}

export interface MirrorInput {
  run: Run;
  wf: ArgoWorkflow | undefined;
  now: Date;
  /** Host of the cluster manager (clusterManagerHost). */
  host?: string;
  stopped: boolean;
  paused: boolean;
}

/** The parts of the Run status derived from the Argo workflow; history entries appended on change. */
export function mirror(input: MirrorInput): Partial<RunStatus> {
  const { run, wf, now, host } = input;
  const prev = run.status ?? {};
  const time = now.toISOString();
  const nodes = wf?.status?.nodes ?? {};
  const byName = new Map(Object.values(nodes).map((n) => [n.name, n]));
  const wfName = wf?.metadata.name ?? '';

  let phase: NonNullable<RunStatus['phase']>;
  const argoPhase = wf?.status?.phase;
  if (!wf || !argoPhase || argoPhase === 'Pending') phase = 'INIT';
  else if (argoPhase === 'Running') phase = input.paused ? 'PAUSED' : 'RUNNING';
  else if (argoPhase === 'Succeeded') phase = 'COMPLETED';
  else phase = input.stopped ? 'STOPPED' : 'ERROR';
  if (input.stopped && phase !== 'COMPLETED' && (argoPhase === 'Failed' || argoPhase === 'Error'))
    phase = 'STOPPED';

  const prevByName = new Map((prev.sandboxStatuses ?? []).map((s) => [s.name, s]));
  const graphNodes = prev.workflow?.nodes ?? [];
  const sandboxStatuses: SandboxRunStatus[] = graphNodes.map((g) => {
    const task = byName.get(`${wfName}.${stepTaskName(g.name)}`);
    let status: ProductStatus = task ? taskStatus(task, nodes) : 'WAITING';
    if (phase === 'PAUSED' && status === 'WAITING') status = 'PAUSED';
    if (
      phase === 'STOPPED' &&
      (status === 'WAITING' ||
        status === 'INIT' ||
        status === 'RUNNING' ||
        /shutdown/.test(task?.message ?? ''))
    )
      status = 'STOPPED';
    if (phase === 'ERROR' && status === 'WAITING') status = 'SKIPPING';
    const before = prevByName.get(g.name);
    const history = [...(before?.history ?? [])];
    if (before?.status !== status) history.push({ sandbox: g.name, action: status, time });
    const s: SandboxRunStatus = { id: g.id, name: g.name, status, history };
    if (host) s.clusterManagerHost = host;
    if (task?.startedAt && status !== 'WAITING') s.startTime = task.startedAt;
    if (task?.finishedAt && FINAL_RUN_PHASES.has(status === 'SKIPPING' ? 'COMPLETED' : status))
      s.stopTime = task.finishedAt;
    const log = task ? logOf(task, nodes) : undefined;
    if (log) s.log = log;
    if (task?.type === 'TaskGroup') {
      s.subSandboxes = (task.children ?? [])
        .map((c) => nodes[c])
        .filter((c): c is ArgoNode => !!c && c.name.startsWith(`${task.name}(`))
        .map((c, i) => {
          let st: SubStatus = c.type === 'Retry' && c.phase === 'Running' ? taskStatus(c, nodes) : subOf(c);
          if (
            phase === 'STOPPED' &&
            (st === 'RUNNING' ||
              st === 'SCHEDULED' ||
              st === 'QUEUED' ||
              st === 'INIT' ||
              /shutdown/.test(c.message ?? ''))
          )
            st = 'STOPPED';
          const sub: NonNullable<SandboxRunStatus['subSandboxes']>[number] = {
            name: `${g.name}(${i})`,
            status: st,
          };
          if (host) sub.clusterManagerHost = host;
          if (c.startedAt) sub.startTime = c.startedAt;
          if (c.finishedAt) sub.stopTime = c.finishedAt;
          return sub;
        });
    }
    return s;
  });

  const history: History[] = [...(prev.history ?? [])];
  if (prev.phase !== phase) history.push({ action: phase, time });

  const out: Partial<RunStatus> = { phase, sandboxStatuses, history };
  if (wf?.status?.startedAt && !prev.startTime) out.startTime = wf.status.startedAt;
  if (FINAL_RUN_PHASES.has(phase)) {
    out.stopTime = wf?.status?.finishedAt ?? prev.stopTime ?? time;
  }
  const start = out.startTime ?? prev.startTime;
  if (start) {
    const end = out.stopTime ? Date.parse(out.stopTime) : now.getTime();
    out.duration = humanDuration(end - Date.parse(start));
  }
  if (wf?.status?.message && phase !== 'COMPLETED') out.message = wf.status.message;

  // Outputs and billing from finished Pod nodes.
  const sandboxOf = new Map(graphNodes.map((g) => [stepTaskName(g.name), g]));
  const templates = new Map((wf?.spec.templates ?? []).map((t) => [t.name, t]));
  const outputs: Output[] = [];
  const billing: Billing[] = [...(prev.billing ?? [])];
  const billed = new Set(billing.map((b) => b.id));
  for (const n of Object.values(nodes)) {
    if (n.type !== 'Pod' || !n.templateName || !n.finishedAt) continue;
    const g = sandboxOf.get(n.templateName);
    if (!g) continue; // helpers (the split step) are not billed and produce no product output
    for (const a of n.outputs?.artifacts ?? []) {
      if (a.name === 'main-logs' || outputs.length >= MAX_OUTPUTS) continue;
      outputs.push({
        name: a.name,
        sandbox: g.name,
        path: a.s3?.key ?? a.path ?? a.name,
        creationTime: n.finishedAt,
      });
    }
    // A rerun (retry, restart_from) keeps the node id: the start time tells the executions apart.
    const billId = `${n.id}@${Date.parse(n.startedAt ?? '')}`;
    if (!['Succeeded', 'Failed', 'Error'].includes(n.phase ?? '') || !n.startedAt || billed.has(billId))
      continue;
    const req = templates.get(n.templateName)?.container?.resources?.requests ?? {};
    const cpu = cpuMillis(req.cpu);
    const memory = memoryMiB(req.memory);
    const ns = Math.max(0, Date.parse(n.finishedAt) - Date.parse(n.startedAt)) * 1e6;
    const machine = machineFor(cpu, memory);
    const labels = run.metadata.labels ?? {};
    billing.push({
      id: billId,
      amount: billingAmount(ns, cpu, memory),
      executionTime: ns,
      organization: labels[LABELS.organization] ?? '',
      paid: false,
      sandboxId: g.sandbox ?? '',
      sandboxName: g.name,
      session: run.spec.session,
      timestamp: n.finishedAt,
      userId: run.spec.owner ?? labels[LABELS.owner] ?? '',
      machine: { cpu: machine.cpu, memory: machine.memory },
    });
    billed.add(billId);
  }
  // Outputs of earlier workflows of the run (before a restart) stay listed.
  const seen = new Set(outputs.map((o) => o.path));
  for (const o of prev.outputs ?? [])
    if (!seen.has(o.path) && !o.path?.includes(`/${wfName}/`)) outputs.push(o);
  out.outputs = outputs.slice(0, MAX_OUTPUTS);
  out.billing = billing;
  return out;
}

export function humanDuration(ms: number): string {
  let s = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  return `${h ? `${h}h` : ''}${h || m ? `${m}m` : ''}${s}s`;
}
