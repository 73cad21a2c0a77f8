// The runner decides a DAG the way Argo's controller does, on what the operator's compiler emits:
// depends with `!`, Omitted read through the switch inputs above, one leaf sf-end; and Argo's
// assessDAGPhase rules for leaves (Skipped inherits the branch phase, continueOn only on the leaf).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compileRun, type CompileInput } from '@sandflow/operator';
import { SWITCH_FAIL_JOINED_WITH_SKIPPED_NODE, nodes } from '@sandflow/operator/testing';
import type { Sandbox, WorkflowSpec } from '@sandflow/crds';
import { operate } from './engine.js';
import { evalDepends } from './expr.js';
import type { Runtime, StepHandle, StepSpec } from './runtime.js';

type Wf = Parameters<typeof operate>[0];

// The engine marks each step's launch under the runtime's run folder: a throwaway one.
const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dag-'));
afterAll(() => fs.rmSync(runDir, { recursive: true, force: true }));
type Outcome = 'Succeeded' | 'Failed' | 'Error';

/** Steps end at once with the outcome chosen per sandbox (split helpers list one part). */
function scriptedRuntime(outcome: (step: StepSpec) => Outcome): Runtime & { ran: string[] } {
  const handles = new Map<string, StepHandle>();
  const ran: string[] = [];
  const now = new Date().toISOString();
  return {
    name: 'scripted',
    ran,
    capacity: { cpu: 1e6, memory: 1e6 },
    runDir: () => runDir,
    sharedDir: () => path.join(runDir, 'shared'),
    logKey: (ns, wf, pod) => `${ns}/${wf}/${pod}`,
    start(step) {
      const phase = step.native ? 'Succeeded' : outcome(step);
      if (!step.native) ran.push(step.env.SANDFLOW_SANDBOX ?? step.pod);
      const h: StepHandle = {
        pod: step.pod,
        key: step.pod,
        startedAt: now,
        result: { phase, startedAt: now, finishedAt: now, ...(step.native ? { result: '["p0"]' } : {}) },
        kill: () => undefined,
      };
      handles.set(step.pod, h);
      return { started: h };
    },
    get: (pod) => handles.get(pod),
    forget: (pod) => void handles.delete(pod),
    reapOrphan: () => undefined,
    killWorkflow: () => undefined,
    removeWorkflow: () => undefined,
    used: () => ({ cpu: 0, memory: 0 }),
    close: async () => undefined,
  };
}

function execute(spec: Wf['spec'], outcome: (sandbox: string) => Outcome) {
  const runtime = scriptedRuntime((s) => outcome(s.env.SANDFLOW_SANDBOX ?? ''));
  const wf = {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Workflow',
    metadata: { name: 'wf', namespace: 'ns' },
    spec,
  } as Wf;
  for (let i = 0; i < 50 && !['Succeeded', 'Failed', 'Error'].includes(wf.status?.phase ?? ''); i++)
    wf.status = operate(wf, { runtime, onExit: () => undefined }).status;
  return { phase: wf.status?.phase, ran: runtime.ran };
}

const sandbox = (name: string): Sandbox => ({
  apiVersion: 'sandflow.io/v1alpha1',
  kind: 'Sandbox',
  metadata: { name: `sb-${name}`, namespace: 'ns' },
  spec: { name, entrypoint: '/run.sh', owner: 'u1', sourceImage: { image: 'alpine', version: '3.20' } },
});

function compiled(spec: Omit<WorkflowSpec, 'name'>, cof: string[] = []): Wf['spec'] {
  const nodes = (spec.nodes ?? []).map((n) => ({ ...n, continueOnFail: cof.includes(n.id) }));
  const input: CompileInput & { run: { name: string } } = {
    workflow: {
      apiVersion: 'sandflow.io/v1alpha1',
      kind: 'Workflow',
      metadata: { name: 'wf', namespace: 'ns' },
      spec: { name: 'wf', owner: 'u1', ...spec, nodes },
    },
    session: {
      apiVersion: 'sandflow.io/v1alpha1',
      kind: 'Session',
      metadata: { name: 's', namespace: 'ns' },
      spec: { name: 's', workflow: 'wf', owner: 'u1' },
    },
    sandboxes: nodes.map((n) => sandbox(n.name)),
    run: { name: 'r' },
  };
  return compileRun(input).spec as Wf['spec'];
}

const SKIPPED_JOIN = SWITCH_FAIL_JOINED_WITH_SKIPPED_NODE;
const JOIN: Omit<WorkflowSpec, 'name'> = {
  nodes: nodes('a', 'ok', 'ko', 'join'),
  switches: [{ id: 's' }],
  edges: [
    { from: 'a', to: 's' },
    { from: 's', to: 'ok', switchCondition: 'success' },
    { from: 's', to: 'ko', switchCondition: 'fail' },
    { from: 'ok', to: 'join' },
    { from: 'ko', to: 'join' },
  ],
};
const CHAIN: Omit<WorkflowSpec, 'name'> = {
  nodes: nodes('a', 'b', 'c'),
  edges: [
    { from: 'a', to: 'b' },
    { from: 'b', to: 'c' },
  ],
};

describe('runner on compiled workflows', () => {
  it.each([
    ['skipped join, all succeed', SKIPPED_JOIN, [], [], 'Succeeded', ['x', 'a', 'b']],
    ['skipped join, a fails (routed)', SKIPPED_JOIN, [], ['a'], 'Succeeded', ['x', 'a']],
    ['skipped join, a and c fail', SKIPPED_JOIN, [], ['a', 'c'], 'Succeeded', ['x', 'a']],
    ['skipped join, x fails', SKIPPED_JOIN, [], ['x'], 'Failed', ['x']],
    ['skipped join, b fails', SKIPPED_JOIN, [], ['b'], 'Failed', ['x', 'a', 'b']],
    ['switch join, a fails', JOIN, [], ['a'], 'Succeeded', ['a', 'ko', 'join']],
    ['switch join, ko fails', JOIN, [], ['a', 'ko'], 'Failed', ['a', 'ko']],
    ['switch join, ko continues on fail', JOIN, ['ko'], ['a', 'ko'], 'Succeeded', ['a', 'ko', 'join']],
    ['chain, b continues on fail', CHAIN, ['b'], ['b'], 'Succeeded', ['a', 'b', 'c']],
    ['chain, b fails', CHAIN, [], ['b'], 'Failed', ['a', 'b']],
    ['chain, leaf c continues on fail', CHAIN, ['c'], ['c'], 'Succeeded', ['a', 'b', 'c']],
  ] as const)('%s → %s', (_label, spec, cof, failing, phase, ran) => {
    const compiledSpec = compiled(spec, [...cof]);
    const result = execute(compiledSpec, (sb) => (failing.includes(sb as never) ? 'Failed' : 'Succeeded'));
    expect(result.phase).toBe(phase);
    expect([...result.ran].sort()).toEqual([...ran].sort());
  });
});

const step = (name: string) => ({ name, container: { name: 'main', image: 'alpine', command: ['true'] } });

describe("runner: Argo's DAG phase from the leaves", () => {
  const dagSpec = (tasks: Record<string, unknown>[]): Wf['spec'] =>
    ({
      entrypoint: 'main',
      templates: [{ name: 'main', dag: { tasks } }, step('t')],
    }) as Wf['spec'];
  const run = (tasks: Record<string, unknown>[], outcome: Record<string, Outcome>) => {
    const spec = dagSpec(tasks.map((t) => ({ template: 't', ...t })));
    const templates = spec.templates!;
    // one template per task so the outcome can be chosen by name
    spec.templates = [
      templates[0]!,
      ...tasks.map((t) => ({
        name: t.name as string,
        container: {
          name: 'main',
          image: 'alpine',
          command: ['true'],
          env: [{ name: 'SANDFLOW_SANDBOX', value: t.name as string }],
        },
      })),
    ];
    for (const t of spec.templates[0]!.dag!.tasks as { template: string; name: string }[])
      t.template = t.name;
    return execute(spec, (sb) => outcome[sb] ?? 'Succeeded').phase;
  };

  it.each([
    [
      'a Skipped leaf inherits Failed from its branch',
      [{ name: 'a' }, { name: 'b', depends: 'a.Failed', when: 'false' }],
      { a: 'Failed' },
      'Failed',
    ],
    [
      'an Omitted leaf inherits Error',
      [{ name: 'a' }, { name: 'b', depends: 'a.Succeeded' }],
      { a: 'Error' },
      'Error',
    ],
    [
      'a handled failure ends in a succeeding leaf',
      [{ name: 'a' }, { name: 'b', depends: 'a.Failed' }],
      { a: 'Failed' },
      'Succeeded',
    ],
    [
      'continueOn counts on the leaf itself',
      [{ name: 'a', continueOn: { failed: true } }],
      { a: 'Failed' },
      'Succeeded',
    ],
    [
      'continueOn of a parent does not cover an Omitted leaf',
      [
        { name: 'a', continueOn: { failed: true } },
        { name: 'b', dependencies: ['a'], when: 'false' },
      ],
      { a: 'Failed' },
      'Failed',
    ],
    [
      'negation in depends',
      [{ name: 'a' }, { name: 'b', depends: '!a.Succeeded' }],
      { a: 'Failed' },
      'Succeeded',
    ],
  ] as const)('%s', (_label, tasks, outcome, phase) => {
    expect(run(tasks as unknown as Record<string, unknown>[], outcome as Record<string, Outcome>)).toBe(
      phase,
    );
  });
});

describe('depends over fan-outs', () => {
  const group = (children: string[]) => ({ phase: 'Failed', children });
  it.each([
    ['x.AllFailed', ['Failed', 'Failed'], true],
    // Argo counts Failed children only: an errored instance is not "failed"
    ['x.AllFailed', ['Failed', 'Error'], false],
    ['x.AnySucceeded', ['Failed', 'Succeeded'], true],
    ['x.AnySucceeded', ['Error'], false],
  ])('%s over %j → %s', (expr, children, expected) => {
    expect(evalDepends(expr, () => group(children))).toBe(expected);
  });
});
