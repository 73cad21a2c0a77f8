// One reconciliation of an Argo Workflow by the local runner: from the object and what the runtime
// knows, the next status. It writes what Argo's controller writes: workflow phase, startedAt/finishedAt,
// progress, message, and `status.nodes` keyed by Argo's node ids (fnv32a of the node name) with
// type (DAG, Pod, Retry, TaskGroup, Skipped, Suspend), displayName, templateName, boundaryID, phase,
// message, children and outputs. Supported: DAG templates with `depends` / `dependencies`, `when`,
// `continueOn`, `withParam` / `withItems`; container and script templates (the split helper runs
// natively); `suspend` templates; retryStrategy (limit, retryPolicy, backoff); spec.suspend;
// spec.shutdown (Stop, Terminate); activeDeadlineSeconds. Lost steps (a Running node with no process
// behind it, e.g. after a runner restart) become Error "pod deleted", as Argo does for deleted pods.
import fs from 'node:fs';
import path from 'node:path';
import { STEP_ENV, cpuMillis, memoryMiB } from '@sandflow/kube';
import {
  durationMs,
  isFinal,
  nodeId,
  type Artifact,
  type ArgoWorkflow,
  type DagTask,
  type NodePhase,
  type NodeStatus,
  type NodeType,
  type Parameter,
  type Template,
  type WorkflowStatus,
} from './argo.js';
import { dependsTasks, evalDepends, evalWhen, type TaskOutcome } from './expr.js';
import type { Runtime, StepHandle, StepSpec } from './runtime.js';
import { isSplitHelper, splitNative } from './split.js';

export interface OperateResult {
  status: WorkflowStatus;
  changed: boolean;
  /** Pods whose final state this status records (the runtime may forget them once it is written). */
  finalizedPods: string[];
  /** When the workflow needs another look (deadline, retry backoff, suspend duration). */
  wakeAt?: number;
  /** Some pod waits for machine resources. */
  waitingForResources: boolean;
}

export interface OperateContext {
  runtime: Runtime;
  onExit: (h: StepHandle) => void;
  now?: Date;
}

const clone = <T>(v: T): T => structuredClone(v);

export function operate(wf: ArgoWorkflow, ctx: OperateContext): OperateResult {
  const before = JSON.stringify(wf.status ?? {});
  const status: WorkflowStatus = clone(wf.status ?? {});
  const result: OperateResult = { status, changed: false, finalizedPods: [], waitingForResources: false };
  if (status.phase === 'Succeeded' || status.phase === 'Failed' || status.phase === 'Error') return result;
  new Operation(wf, status, ctx, result).run();
  result.changed = JSON.stringify(status) !== before;
  return result;
}

class Operation {
  private readonly name: string;
  private readonly namespace: string;
  private readonly nodes: Record<string, NodeStatus>;
  private readonly templates = new Map<string, Template>();
  private readonly now: Date;
  private readonly nowIso: string;

  constructor(
    private readonly wf: ArgoWorkflow,
    private readonly status: WorkflowStatus,
    private readonly ctx: OperateContext,
    private readonly result: OperateResult,
  ) {
    this.name = wf.metadata.name!;
    this.namespace = wf.metadata.namespace ?? 'default';
    this.nodes = status.nodes ??= {};
    for (const t of wf.spec.templates ?? []) this.templates.set(t.name, t);
    this.now = ctx.now ?? new Date();
    this.nowIso = isoSeconds(this.now);
  }

  run() {
    const { status, wf } = this;
    if (!status.phase || status.phase === 'Pending') {
      status.phase = 'Running';
      status.startedAt ??= this.nowIso;
    }
    const entry = this.templates.get(wf.spec.entrypoint);
    if (!entry) return this.fail('Error', `spec.entrypoint ${wf.spec.entrypoint} is not a template`);

    let root = this.nodes[this.name];
    root ??= this.nodes[this.name] = this.mk(
      this.name,
      this.name,
      entry.dag ? 'DAG' : 'Pod',
      entry.name,
      undefined,
    );

    const stopReason = this.stopReason();
    if (stopReason) return this.shutdown(stopReason);

    this.advance(root, entry);
    if (isFinal(root.phase)) {
      status.phase = root.phase === 'Succeeded' ? 'Succeeded' : root.phase === 'Error' ? 'Error' : 'Failed';
      status.finishedAt = root.finishedAt ?? this.nowIso;
      if (root.message && status.phase !== 'Succeeded') status.message = root.message;
    }
    this.progress();
  }

  private stopReason(): string | undefined {
    const { spec } = this.wf;
    if (spec.shutdown === 'Stop' || spec.shutdown === 'Terminate') return `shutdown:${spec.shutdown}`;
    const ads = Number(spec.activeDeadlineSeconds ?? 0);
    if (ads > 0 && this.status.startedAt) {
      const deadline = Date.parse(this.status.startedAt) + ads * 1000;
      if (this.now.getTime() >= deadline) return 'deadline';
      this.wake(deadline);
    }
    return undefined;
  }

  /** Shutdown or deadline: kill what runs, fail everything unfinished, end the workflow Failed. */
  private shutdown(reason: string) {
    const strategy = reason.startsWith('shutdown:') ? reason.slice(9) : undefined;
    const nodeMessage = strategy
      ? `workflow shutdown with strategy:  ${strategy}`
      : 'Step exceeded its deadline';
    this.ctx.runtime.killWorkflow(this.namespace, this.name, nodeMessage);
    let stillRunning = false;
    for (const n of Object.values(this.nodes)) {
      if (n.type !== 'Pod' || isFinal(n.phase)) continue;
      const h = this.ctx.runtime.get(n.id);
      if (h && !h.result) {
        stillRunning = true; // wait for the process group to die, then record it
        continue;
      }
      if (h?.result) this.applyResult(n, h);
      if (!isFinal(n.phase) || h?.result) {
        n.phase = 'Failed';
        n.message = nodeMessage;
        n.finishedAt ??= this.nowIso;
      }
    }
    if (stillRunning) return this.progress();
    for (const n of Object.values(this.nodes)) {
      if (isFinal(n.phase)) continue;
      n.phase = 'Failed';
      n.message = nodeMessage;
      n.finishedAt = this.nowIso;
    }
    this.status.phase = 'Failed';
    this.status.message = strategy ? `Stopped with strategy '${strategy}'` : 'Step exceeded its deadline';
    this.status.finishedAt = this.nowIso;
    this.progress();
  }

  private fail(phase: 'Failed' | 'Error', message: string) {
    this.status.phase = phase;
    this.status.message = message;
    this.status.finishedAt = this.nowIso;
  }

  private wake(at: number) {
    if (this.result.wakeAt === undefined || at < this.result.wakeAt) this.result.wakeAt = at;
  }

  private mk(
    name: string,
    displayName: string,
    type: NodeType,
    templateName: string | undefined,
    boundaryID: string | undefined,
    phase: NodePhase = 'Running',
  ): NodeStatus {
    const n: NodeStatus = {
      id: nodeId(this.name, name),
      name,
      displayName,
      type,
      phase,
      startedAt: this.nowIso,
    };
    if (templateName) n.templateName = templateName;
    if (boundaryID) n.boundaryID = boundaryID;
    if (isFinal(phase)) n.finishedAt = this.nowIso;
    this.nodes[n.id] = n;
    return n;
  }

  /**
   * A step's launch is marked on disk before its process starts, and the node is recorded Running
   * only after. A runner killed in between (kill -9) finds the node Pending, or not at all when the
   * status that created it was never written, with the mark at its next start: the step may have
   * run, so it is failed like a pod lost while Running, never started twice. The mark goes when the
   * node's outcome is known, so a node `argo retry` removes and recreates under the same id starts.
   */
  private launchMark(id: string) {
    return path.join(this.ctx.runtime.runDir(this.namespace, this.name), id, 'launched');
  }

  private markLaunch(id: string) {
    const mark = this.launchMark(id);
    try {
      fs.mkdirSync(path.dirname(mark), { recursive: true });
      fs.writeFileSync(mark, '');
    } catch {
      /* no folder (a runtime without one, a full disk): the start itself reports it */
    }
  }

  private unmarkLaunch(id: string) {
    try {
      fs.rmSync(this.launchMark(id), { force: true });
    } catch {
      /* nothing to remove */
    }
  }

  private finish(n: NodeStatus, phase: NodePhase, message?: string) {
    n.phase = phase;
    n.finishedAt ??= this.nowIso;
    if (message) n.message = message;
    else delete n.message;
  }

  private advance(n: NodeStatus, t: Template | undefined) {
    if (isFinal(n.phase)) return;
    if (!t) return this.finish(n, 'Error', `template ${n.templateName} not found`);
    switch (n.type) {
      case 'DAG':
        return this.dag(n, t);
      case 'Pod':
        return this.pod(n, t);
      case 'Retry':
        return this.retry(n, t);
      case 'Suspend':
        return this.suspend(n, t);
      case 'TaskGroup': {
        const children = (n.children ?? []).map((id) => this.nodes[id]!).filter(Boolean);
        for (const c of children) this.advance(c, t);
        if (children.every((c) => isFinal(c.phase))) {
          const failed = children.find((c) => c.phase === 'Failed' || c.phase === 'Error');
          if (failed) this.finish(n, 'Failed', `child '${failed.id}' failed`);
          else this.finish(n, 'Succeeded');
        }
        return;
      }
      default:
        return;
    }
  }

  // ---- DAG

  private taskNodeName(dag: NodeStatus, task: string) {
    return `${dag.name}.${task}`;
  }
  private taskNode(dag: NodeStatus, task: string): NodeStatus | undefined {
    return this.nodes[nodeId(this.name, this.taskNodeName(dag, task))];
  }
  private taskDeps(task: DagTask): string[] {
    if (task.depends) return dependsTasks(task.depends);
    return task.dependencies ?? [];
  }
  private outcome(n: NodeStatus): TaskOutcome {
    const o: TaskOutcome = { phase: n.phase };
    if (n.type === 'TaskGroup')
      o.children = (n.children ?? []).map((id) => this.nodes[id]?.phase ?? 'Pending');
    return o;
  }

  private dag(dag: NodeStatus, t: Template) {
    const tasks = t.dag?.tasks ?? [];
    const byName = new Map(tasks.map((task) => [task.name, task]));
    for (let guard = 0; guard <= tasks.length + 1; guard++) {
      let progressed = false;
      for (const task of tasks) {
        const existing = this.taskNode(dag, task.name);
        if (existing) {
          if (!isFinal(existing.phase)) {
            this.advance(existing, this.templates.get(existing.templateName ?? task.template));
            if (isFinal(existing.phase)) progressed = true;
          }
          continue;
        }
        const deps = this.taskDeps(task);
        const depNodes = deps.map((d) => this.taskNode(dag, d));
        if (depNodes.some((d) => !d || !isFinal(d.phase))) continue;
        const parents = depNodes.length > 0 ? (depNodes as NodeStatus[]) : [dag];
        let ok: boolean;
        try {
          ok = task.depends
            ? evalDepends(task.depends, (name) => {
                const n = byName.has(name) ? this.taskNode(dag, name) : undefined;
                return n ? this.outcome(n) : undefined;
              })
            : (depNodes as NodeStatus[]).every(
                (d) =>
                  d.phase === 'Succeeded' ||
                  d.phase === 'Skipped' ||
                  (d.phase === 'Failed' && byName.get(d.displayName)?.continueOn?.failed) ||
                  (d.phase === 'Error' && byName.get(d.displayName)?.continueOn?.error),
              );
        } catch (e) {
          const n = this.mk(
            this.taskNodeName(dag, task.name),
            task.name,
            'Skipped',
            task.template,
            dag.id,
            'Error',
          );
          n.message = (e as Error).message;
          this.link(parents, n);
          progressed = true;
          continue;
        }
        const name = this.taskNodeName(dag, task.name);
        if (!ok) {
          const n = this.mk(name, task.name, 'Skipped', task.template, dag.id, 'Omitted');
          n.message = 'omitted: depends condition not met';
          this.link(parents, n);
          progressed = true;
          continue;
        }
        if (this.wf.spec.suspend) continue; // a suspended workflow starts nothing new
        if (task.when) {
          const w = this.substitute(task.when, dag, {});
          let run: boolean;
          try {
            run = evalWhen(w);
          } catch (e) {
            const n = this.mk(name, task.name, 'Skipped', task.template, dag.id, 'Error');
            n.message = `invalid when expression '${w}': ${(e as Error).message}`;
            this.link(parents, n);
            progressed = true;
            continue;
          }
          if (!run) {
            const n = this.mk(name, task.name, 'Skipped', task.template, dag.id, 'Skipped');
            n.message = `when '${w}' evaluated false`;
            this.link(parents, n);
            progressed = true;
            continue;
          }
        }
        let items: unknown[] | undefined;
        try {
          if (task.withItems) items = task.withItems;
          else if (task.withParam) {
            const raw = this.substitute(task.withParam, dag, {});
            const parsed: unknown = JSON.parse(raw);
            if (!Array.isArray(parsed))
              throw new Error(`withParam value could not be parsed as a JSON list: ${raw}`);
            items = parsed;
          }
        } catch (e) {
          const n = this.mk(name, task.name, 'TaskGroup', task.template, dag.id, 'Error');
          n.message = (e as Error).message;
          this.link(parents, n);
          progressed = true;
          continue;
        }
        if (items) {
          const group = this.mk(name, task.name, 'TaskGroup', task.template, dag.id);
          this.link(parents, group);
          if (items.length === 0) this.finish(group, 'Skipped', 'Skipped, empty params');
          items.forEach((item, i) => {
            const label = typeof item === 'string' ? item : JSON.stringify(item);
            const child = this.createTask(
              `${name}(${i}:${label})`,
              `${task.name}(${i}:${label})`,
              task,
              dag,
              { item },
            );
            (group.children ??= []).push(child.id);
          });
        } else {
          const n = this.createTask(name, task.name, task, dag, {});
          this.link(parents, n);
        }
        progressed = true;
      }
      if (!progressed) break;
    }
    const all = tasks.map((task) => this.taskNode(dag, task.name));
    if (all.every((n) => n && isFinal(n.phase))) this.assessDag(dag, tasks);
  }

  private link(parents: NodeStatus[], child: NodeStatus) {
    // Like Argo, dependants of a fan-out hang off its instances (the group's outbound nodes).
    parents = parents.flatMap((p) =>
      p.type === 'TaskGroup' && p.children?.length ? p.children.map((id) => this.nodes[id] ?? p) : [p],
    );
    for (let p of parents) {
      // Like Argo, dependants hang off a retried task's last attempt (its outbound node).
      if (p.type === 'Retry' && p.children?.length) p = this.nodes[p.children[p.children.length - 1]!] ?? p;
      const list = (p.children ??= []);
      if (!list.includes(child.id)) list.push(child.id);
    }
  }

  /**
   * Argo's assessDAGPhase (workflow/controller/dag.go): only the leaf tasks count. A task that
   * completed (Succeeded, Failed, Error) sets the phase of its branch; an Omitted or Skipped one
   * inherits it from the tasks it depends on, Failed or Error preferred (a root inherits Succeeded).
   * A leaf whose branch failed fails the DAG with that phase unless the leaf's own continueOn covers it.
   */
  private assessDag(dag: NodeStatus, tasks: DagTask[]) {
    const referenced = new Set(tasks.flatMap((t) => this.taskDeps(t)));
    const leaves = tasks.filter((t) => !referenced.has(t.name));
    const byName = new Map(tasks.map((t) => [t.name, t]));
    const memo = new Map<string, NodeStatus | undefined>();
    /** The failed or errored node that sets the task's branch phase, if any. */
    const failedBranch = (task: DagTask): NodeStatus | undefined => {
      if (memo.has(task.name)) return memo.get(task.name);
      memo.set(task.name, undefined);
      const n = this.taskNode(dag, task.name)!;
      let found: NodeStatus | undefined;
      if (n.phase === 'Failed' || n.phase === 'Error') found = n;
      else if (n.phase === 'Omitted' || n.phase === 'Skipped') {
        for (const d of this.taskDeps(task)) {
          const dt = byName.get(d);
          found = dt && failedBranch(dt);
          if (found) break;
        }
      }
      memo.set(task.name, found);
      return found;
    };
    dag.outboundNodes = leaves.map((t) => this.taskNode(dag, t.name)!.id);
    for (const leaf of leaves) {
      const failed = failedBranch(leaf);
      if (!failed) continue;
      const phase = failed.phase === 'Error' ? 'Error' : 'Failed';
      if ((phase === 'Failed' && leaf.continueOn?.failed) || (phase === 'Error' && leaf.continueOn?.error))
        continue;
      return this.finish(dag, phase, `child '${failed.id}' failed`);
    }
    this.finish(dag, 'Succeeded');
  }

  private createTask(
    name: string,
    displayName: string,
    task: DagTask,
    dag: NodeStatus,
    scope: { item?: unknown },
  ): NodeStatus {
    const t = this.templates.get(task.template);
    if (!t) {
      const n = this.mk(name, displayName, 'Pod', task.template, dag.id, 'Error');
      n.message = `template ${task.template} not found`;
      return n;
    }
    const params: Parameter[] = (t.inputs?.parameters ?? []).map((p) => {
      const arg = task.arguments?.parameters?.find((a) => a.name === p.name);
      const value = arg?.value !== undefined ? this.substitute(arg.value, dag, scope) : p.value;
      return value === undefined ? { name: p.name } : { name: p.name, value };
    });
    const type: NodeType = t.dag ? 'DAG' : t.suspend ? 'Suspend' : t.retryStrategy ? 'Retry' : 'Pod';
    const n = this.mk(name, displayName, type, t.name, dag.id, type === 'Pod' ? 'Pending' : 'Running');
    if (params.length > 0) n.inputs = { parameters: params };
    this.advance(n, t);
    return n;
  }

  // ---- leaves

  private suspend(n: NodeStatus, t: Template) {
    const d = t.suspend?.duration;
    if (d === undefined) return; // resumed from outside (argo resume), like Argo
    const until = Date.parse(n.startedAt ?? this.nowIso) + durationMs(d);
    if (this.now.getTime() >= until) this.finish(n, 'Succeeded');
    else this.wake(until);
  }

  private retry(n: NodeStatus, t: Template) {
    const strategy = t.retryStrategy ?? {};
    const children = n.children ?? [];
    let last = children.length > 0 ? this.nodes[children[children.length - 1]!] : undefined;
    if (!last) {
      last = this.attempt(n, 0);
    }
    this.pod(last, t);
    if (!isFinal(last.phase)) return;
    if (last.phase === 'Succeeded') {
      if (last.outputs) n.outputs = last.outputs;
      return this.finish(n, 'Succeeded');
    }
    const limit = Number(strategy.limit ?? 0);
    const policy = strategy.retryPolicy ?? 'OnFailure';
    const retryable =
      policy === 'Always' ||
      (policy === 'OnFailure' && last.phase === 'Failed') ||
      ((policy === 'OnError' || policy === 'OnTransientError') && last.phase === 'Error');
    if (children.length <= limit && retryable && !this.wf.spec.suspend) {
      const base = durationMs(strategy.backoff?.duration);
      const factor = Number(strategy.backoff?.factor ?? 1) || 1;
      const wait = base * factor ** (children.length - 1);
      const at = Date.parse(last.finishedAt ?? this.nowIso) + wait;
      if (wait > 0 && this.now.getTime() < at) {
        n.message = `Backoff for ${Math.round(wait / 1000)}s`;
        return this.wake(at);
      }
      delete n.message;
      const next = this.attempt(n, children.length);
      this.pod(next, t);
      return;
    }
    if (!retryable || children.length > limit) {
      this.finish(
        n,
        last.phase,
        last.message ?? (children.length > limit ? 'No more retries left' : undefined),
      );
    }
  }

  private attempt(retryNode: NodeStatus, i: number): NodeStatus {
    const n = this.mk(
      `${retryNode.name}(${i})`,
      `${retryNode.displayName}(${i})`,
      'Pod',
      retryNode.templateName,
      retryNode.boundaryID,
      'Pending',
    );
    if (retryNode.inputs) n.inputs = clone(retryNode.inputs);
    (retryNode.children ??= []).push(n.id);
    return n;
  }

  private pod(n: NodeStatus, t: Template) {
    if (isFinal(n.phase)) return;
    const rt = this.ctx.runtime;
    let h = rt.get(n.id);
    if (n.phase === 'Pending' && !h) {
      if (fs.existsSync(this.launchMark(n.id))) {
        rt.reapOrphan(this.namespace, this.name, n.id);
        this.unmarkLaunch(n.id);
        this.finish(n, 'Error', 'pod deleted: the runner stopped after starting this step');
        return;
      }
      const spec = this.stepSpec(n, t);
      this.markLaunch(n.id);
      const outcome = rt.start(spec, this.ctx.onExit);
      if ('pending' in outcome) {
        this.unmarkLaunch(n.id);
        n.message = outcome.pending;
        this.result.waitingForResources = true;
        return;
      }
      h = outcome.started;
    }
    if (h && n.phase === 'Pending') {
      n.phase = 'Running';
      n.startedAt = isoSeconds(new Date(h.startedAt));
      n.hostNodeName = 'local';
      delete n.message;
    }
    if (n.phase === 'Running') {
      if (!h) {
        rt.reapOrphan(this.namespace, this.name, n.id);
        this.unmarkLaunch(n.id);
        this.finish(n, 'Error', 'pod deleted');
        return;
      }
      if (h.result) {
        this.applyResult(n, h);
        this.collectOutputs(n, t);
      }
    }
  }

  private applyResult(n: NodeStatus, h: StepHandle) {
    const r = h.result!;
    this.unmarkLaunch(n.id);
    n.phase = r.phase;
    n.startedAt = isoSeconds(new Date(r.startedAt));
    n.finishedAt = isoSeconds(new Date(r.finishedAt));
    if (r.message) n.message = r.message;
    else delete n.message;
    const outputs: NonNullable<NodeStatus['outputs']> = {};
    if (r.exitCode !== undefined) outputs.exitCode = String(r.exitCode);
    if (r.result !== undefined) outputs.result = r.result;
    if (r.artifacts?.length) outputs.artifacts = [...r.artifacts];
    n.outputs = outputs;
    const seconds = Math.max(1, Math.round((Date.parse(r.finishedAt) - Date.parse(r.startedAt)) / 1000));
    n.resourcesDuration = { cpu: seconds, memory: seconds };
    this.result.finalizedPods.push(n.id);
  }

  /** Files the step wrote into its output folder (SANDFLOW_OUTPUT under /sandflow), as output artifacts. */
  private collectOutputs(n: NodeStatus, t: Template) {
    if (n.phase !== 'Succeeded') return;
    const c = t.container ?? t.script;
    const out = c?.env?.find((e) => e.name === STEP_ENV.output)?.value;
    if (!out?.startsWith('/sandflow/')) return;
    const shared = this.ctx.runtime.sharedDir(this.namespace, this.name);
    const rel = out.slice('/sandflow/'.length);
    const dir = path.join(shared, rel);
    const since = Date.parse(n.startedAt ?? '') - 1000;
    const files: Artifact[] = [];
    const walk = (d: string, prefix: string) => {
      let entries: fs.Dirent[] = [];
      try {
        entries = fs.readdirSync(d, { withFileTypes: true });
      } catch {
        return;
      }
      for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
        if (files.length >= 100) return;
        const p = path.join(d, e.name);
        if (e.isDirectory()) walk(p, `${prefix}${e.name}/`);
        else if (e.isFile() && fs.statSync(p).mtimeMs >= since) {
          files.push({
            name: `${prefix}${e.name}`,
            path: `/sandflow/${rel}/${prefix}${e.name}`,
            s3: { key: `${this.namespace}/${this.name}/shared/${rel}/${prefix}${e.name}` },
          });
        }
      }
    };
    walk(dir, '');
    if (files.length > 0) (n.outputs ??= {}).artifacts = [...(n.outputs?.artifacts ?? []), ...files];
  }

  private stepSpec(n: NodeStatus, t: Template): StepSpec {
    const inputs = Object.fromEntries((n.inputs?.parameters ?? []).map((p) => [p.name, p.value ?? '']));
    const sub = (s: string) => this.substituteInputs(s, inputs, n.id);
    const c = t.container ?? t.script;
    const requests = {
      cpu: cpuMillis(c?.resources?.requests?.cpu ?? c?.resources?.limits?.cpu),
      memory: memoryMiB(c?.resources?.requests?.memory ?? c?.resources?.limits?.memory),
    };
    const env: Record<string, string> = {};
    for (const e of c?.env ?? []) env[e.name] = sub(e.value ?? '');
    const base = {
      pod: n.id,
      namespace: this.namespace,
      workflow: this.name,
      env,
      requests,
      ...(c?.image ? { image: c.image } : {}),
      ...this.isolation(c, t),
    };
    if (isSplitHelper(t)) {
      const shared = this.ctx.runtime.sharedDir(this.namespace, this.name);
      const local = (p: string) =>
        p.startsWith('/sandflow') ? path.join(shared, p.slice('/sandflow'.length)) : p;
      return {
        ...base,
        command: ['sf-split'],
        captureResult: true,
        native: async (log) => {
          const out = await splitNative({
            source: local(inputs.source ?? ''),
            target: local(inputs.target ?? ''),
            mode: inputs.mode ?? 'line',
            per: Number(inputs.per ?? '1'),
          });
          log(out);
          return out;
        },
      };
    }
    const command = [...(c?.command ?? []), ...(c?.args ?? [])].map(sub);
    if (t.script) {
      return {
        ...base,
        command: command.length ? command : ['sh'],
        script: sub(t.script.source),
        captureResult: true,
      };
    }
    return { ...base, command, captureResult: false };
  }

  /**
   * What an isolating runtime applies to the step, as a kubelet would from the pod: the container's
   * runAsUser/runAsGroup, its hostPath volume mounts (the shared volume is the runtime's /sandflow;
   * claims have no folder here) and its memory limit.
   */
  private isolation(c: Template['container'] | Template['script'], t: Template): Partial<StepSpec> {
    const out: Partial<StepSpec> = {};
    const sc = c?.securityContext;
    if (typeof sc?.runAsUser === 'number') out.uid = sc.runAsUser;
    if (typeof sc?.runAsGroup === 'number') out.gid = sc.runAsGroup;
    const volumes = new Map([...(this.wf.spec.volumes ?? []), ...(t.volumes ?? [])].map((v) => [v.name, v]));
    const mounts: NonNullable<StepSpec['mounts']> = [];
    for (const m of c?.volumeMounts ?? []) {
      const hostPath = volumes.get(m.name)?.hostPath?.path;
      if (hostPath)
        mounts.push({ hostPath, mountPath: m.mountPath, ...(m.readOnly ? { readOnly: true } : {}) });
    }
    if (mounts.length > 0) out.mounts = mounts;
    const memory = c?.resources?.limits?.memory;
    if (memory !== undefined) out.limits = { memoryMiB: memoryMiB(memory) };
    return out;
  }

  // ---- substitution

  private substituteInputs(s: string, inputs: Record<string, string>, pod: string): string {
    return s.replace(/\{\{\s*([^{}]+?)\s*\}\}/g, (m, expr: string) => {
      if (expr.startsWith('inputs.parameters.')) return inputs[expr.slice(18)] ?? m;
      if (expr === 'pod.name') return pod;
      return this.global(expr) ?? m;
    });
  }

  private global(expr: string): string | undefined {
    const md = this.wf.metadata;
    if (expr === 'workflow.name') return md.name;
    if (expr === 'workflow.namespace') return this.namespace;
    if (expr === 'workflow.uid') return md.uid;
    if (expr.startsWith('workflow.parameters.'))
      return this.wf.spec.arguments?.parameters?.find((p) => p.name === expr.slice(20))?.value;
    if (expr.startsWith('workflow.labels.')) return md.labels?.[expr.slice(16)];
    return undefined;
  }

  private substitute(s: string, dag: NodeStatus, scope: { item?: unknown }): string {
    return s.replace(/\{\{\s*([^{}]+?)\s*\}\}/g, (m, expr: string) => {
      if (expr === 'item' && 'item' in scope)
        return typeof scope.item === 'string' ? scope.item : JSON.stringify(scope.item);
      if (expr.startsWith('item.') && scope.item && typeof scope.item === 'object') {
        const v = (scope.item as Record<string, unknown>)[expr.slice(5)];
        return v === undefined ? m : typeof v === 'string' ? v : JSON.stringify(v);
      }
      const tm = /^tasks\.([^.]+)\.outputs\.(result|parameters\.(.+))$/.exec(expr);
      if (tm) {
        const n = this.taskNode(dag, tm[1]!);
        if (!n) return m;
        if (tm[2] === 'result') return n.outputs?.result ?? m;
        return n.outputs?.parameters?.find((p) => p.name === tm[3])?.value ?? m;
      }
      return this.global(expr) ?? m;
    });
  }

  private progress() {
    let done = 0;
    let total = 0;
    for (const n of Object.values(this.nodes)) {
      if (n.type !== 'Pod') continue;
      total++;
      if (n.phase === 'Succeeded') done++;
    }
    this.status.progress = `${done}/${total}`;
    const root = this.nodes[this.name];
    if (root) root.progress = this.status.progress;
  }
}

/**
 * Times are RFC 3339 like Argo's metav1.Time, but keep milliseconds (Go's parser accepts fractional
 * seconds): billing is per nanosecond of execution and step-to-step overheads are milliseconds.
 */
export function isoSeconds(d: Date): string {
  return d.toISOString();
}
