// Test support: executes a compiled DAG the way the Argo controller (v4.1) decides it — `depends`
// expressions over task results, Omitted tasks, and the final phase from the leaf (target) tasks
// with Omitted and Skipped targets inheriting their branch phase (Failed/Error preferred; a node
// sets the branch phase only when it Completed: Succeeded, Failed or Error), as in
// workflow/controller/dag.go assessDAGPhase. Pods are replaced by a given outcome per task.
import type { IDAGTask } from '@kubernetes-models/argo-workflows/argoproj.io/v1alpha1/DAGTask';

export type Phase = 'Succeeded' | 'Failed' | 'Error' | 'Omitted' | 'Skipped';

const RESULT_PHASE: Record<string, Phase> = {
  Succeeded: 'Succeeded',
  Failed: 'Failed',
  Errored: 'Error',
  Omitted: 'Omitted',
  Skipped: 'Skipped',
};

/** Task names referenced by a depends expression. */
export function dependsTasks(depends: string | undefined): string[] {
  if (!depends) return [];
  const names = new Set<string>();
  for (const m of depends.matchAll(/([A-Za-z0-9][A-Za-z0-9-]*)\.([A-Za-z]+)/g)) names.add(m[1]!);
  return [...names];
}

/** Evaluates a depends expression (&&, ||, !, parentheses, task.Result) against task phases. */
export function evalDepends(depends: string, phases: Map<string, Phase>): boolean {
  const tokens = depends.match(/&&|\|\||!|\(|\)|[A-Za-z0-9][A-Za-z0-9-]*(?:\.[A-Za-z]+)?/g) ?? [];
  let i = 0;
  const atom = (): boolean => {
    const t = tokens[i++];
    if (t === '!') return !atom();
    if (t === '(') {
      const v = orExpr();
      if (tokens[i++] !== ')') throw new Error(`unbalanced: ${depends}`);
      return v;
    }
    if (!t) throw new Error(`unexpected end: ${depends}`);
    const [task, result] = t.split('.') as [string, string | undefined];
    const phase = phases.get(task);
    if (phase === undefined) throw new Error(`unknown task ${task}`);
    if (result === undefined) return phase === 'Succeeded' || phase === 'Skipped';
    const wanted = RESULT_PHASE[result];
    if (!wanted) throw new Error(`unknown result ${result}`);
    return phase === wanted;
  };
  const andExpr = (): boolean => {
    let v = atom();
    while (tokens[i] === '&&') {
      i++;
      const r = atom();
      v = v && r;
    }
    return v;
  };
  const orExpr = (): boolean => {
    let v = andExpr();
    while (tokens[i] === '||') {
      i++;
      const r = andExpr();
      v = v || r;
    }
    return v;
  };
  const value = orExpr();
  if (i !== tokens.length) throw new Error(`trailing tokens in ${depends}`);
  return value;
}

export interface DagRun {
  phases: Map<string, Phase>;
  /** The DAG (hence Workflow) phase. */
  phase: 'Succeeded' | 'Failed' | 'Error';
}

/**
 * Runs the DAG: a task whose depends holds executes and ends with outcome(task) (default
 * Succeeded); one whose depends fails is Omitted. Then the DAG phase is assessed.
 */
export function runDag(
  tasks: IDAGTask[],
  outcome: (task: string) => 'Succeeded' | 'Failed' | 'Error',
): DagRun {
  const phases = new Map<string, Phase>();
  const byName = new Map(tasks.map((t) => [t.name, t]));
  const deps = new Map(tasks.map((t) => [t.name, dependsTasks(t.depends)]));
  const visit = (name: string, stack: Set<string>): Phase => {
    const done = phases.get(name);
    if (done) return done;
    if (stack.has(name)) throw new Error(`cycle at ${name}`);
    stack.add(name);
    for (const d of deps.get(name) ?? []) {
      if (!byName.has(d)) throw new Error(`${name} depends on unknown task ${d}`);
      visit(d, stack);
    }
    const task = byName.get(name)!;
    const phase: Phase = task.depends && !evalDepends(task.depends, phases) ? 'Omitted' : outcome(name);
    phases.set(name, phase);
    return phase;
  };
  for (const t of tasks) visit(t.name, new Set());

  // Children: a task is a child of each task it depends on; roots are children of the boundary.
  const children = new Map<string, string[]>(tasks.map((t) => [t.name, []]));
  const roots: string[] = [];
  for (const t of tasks) {
    const ds = deps.get(t.name)!;
    if (ds.length === 0) roots.push(t.name);
    for (const d of ds) children.get(d)!.push(t.name);
  }
  const hasDependant = new Set(tasks.flatMap((t) => deps.get(t.name)!));
  const targets = tasks.map((t) => t.name).filter((n) => !hasDependant.has(n));
  const failedOrError = (p: Phase | '' | undefined) => p === 'Failed' || p === 'Error';
  const targetPhase = new Map<string, Phase | ''>(targets.map((t) => [t, '']));
  const seen = new Set<string>();
  const queue: [string, Phase][] = roots.map((r) => [r, 'Succeeded']);
  while (queue.length) {
    const [name, inherited] = queue.shift()!;
    const key = `${name}/${inherited}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const own = phases.get(name)!;
    const branch: Phase = own === 'Omitted' || own === 'Skipped' ? inherited : own;
    if (targetPhase.has(name) && !failedOrError(targetPhase.get(name))) targetPhase.set(name, branch);
    for (const c of children.get(name)!) queue.push([c, branch]);
  }
  let phase: DagRun['phase'] = 'Succeeded';
  for (const t of targets) {
    const p = targetPhase.get(t);
    if (failedOrError(p)) {
      const co = byName.get(t)!.continueOn;
      if ((p === 'Failed' && co?.failed) || (p === 'Error' && co?.error)) continue;
      phase = p === 'Error' ? 'Error' : 'Failed';
      break;
    }
  }
  return { phases, phase };
}
