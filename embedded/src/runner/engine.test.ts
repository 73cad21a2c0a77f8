import { describe, expect, it } from 'vitest';
import { cpuMillis, memoryMiB } from '@sandflow/kube';
import { durationMs, fnv32a, nodeId } from './argo.js';
import { dependsTasks, evalDepends, evalWhen } from './expr.js';
import { operate } from './engine.js';
import { remapShared, type Runtime, type StepHandle } from './runtime.js';
import { splitNative } from './split.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

describe('Argo node ids', () => {
  it('are fnv32a of the node name after the workflow name, the root keeps the workflow name', () => {
    expect(fnv32a('')).toBe(0x811c9dc5);
    expect(fnv32a('a')).toBe(0xe40c292c);
    expect(nodeId('wf', 'wf')).toBe('wf');
    expect(nodeId('wf', 'wf.sb-a')).toBe(`wf-${fnv32a('wf.sb-a')}`);
  });
});

describe('depends expressions', () => {
  const phases: Record<string, string> = {
    a: 'Succeeded',
    b: 'Failed',
    c: 'Omitted',
    d: 'Error',
    e: 'Skipped',
  };
  const ev = (s: string) => evalDepends(s, (t) => (phases[t] ? { phase: phases[t] } : undefined));
  it.each([
    ['a', true],
    ['a.Succeeded', true],
    ['b', false],
    ['e', true],
    ['(b.Failed || b.Errored) && a.Succeeded', true],
    ['(sb-x.Succeeded)', undefined],
    ['!b.Succeeded', true],
    ['(c.Succeeded || c.Omitted) && (d.Errored)', true],
    ['a && b', false],
    ['a || b', true],
  ])('%s → %s', (expr, expected) => {
    if (expected === undefined) expect(() => ev(expr)).toThrow(/unknown task/);
    else expect(ev(expr)).toBe(expected);
  });
  it('lists the tasks an expression refers to', () => {
    expect(dependsTasks('(sb-a.Succeeded || sb-a.Failed) && sf-split-b.Succeeded && c')).toEqual([
      'sb-a',
      'sf-split-b',
      'c',
    ]);
  });
  it('evaluates when conditions', () => {
    expect(evalWhen('heads == heads')).toBe(true);
    expect(evalWhen('3 > 10')).toBe(false);
    expect(evalWhen("'a' != 'b' && true")).toBe(true);
  });
});

describe('quantities and durations', () => {
  it('parses cpu, memory and durations', () => {
    expect(cpuMillis('500m')).toBe(500);
    expect(cpuMillis('2')).toBe(2000);
    expect(memoryMiB('512Mi')).toBe(512);
    expect(memoryMiB('1Gi')).toBe(1024);
    expect(durationMs('1m30s')).toBe(90_000);
    expect(durationMs('0')).toBe(0);
  });
});

describe('shared folder remapping', () => {
  it('rewrites /sandflow paths only', () => {
    expect(remapShared('/sandflow/ingest/items.txt', '/d/shared')).toBe('/d/shared/ingest/items.txt');
    expect(remapShared('cat "/sandflow/x" > /sandflowx', '/d')).toBe('cat "/d/x" > /sandflowx');
    expect(remapShared('/sandflow', '/d')).toBe('/d');
    expect(remapShared('/opt/sandflow/x', '/d')).toBe('/opt/sandflow/x');
  });
});

describe('native split helper', () => {
  it('splits lines like split -l N -a 6 and lists the parts as JSON', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'split-'));
    fs.writeFileSync(path.join(dir, 'in.txt'), 'a\nb\nc\n');
    const out = await splitNative({
      source: path.join(dir, 'in.txt'),
      target: path.join(dir, 'parts'),
      mode: 'line',
      per: 2,
    });
    expect(JSON.parse(out)).toEqual(['part-aaaaaa', 'part-aaaaab']);
    expect(fs.readFileSync(path.join(dir, 'parts/part-aaaaab'), 'utf8')).toBe('c\n');
    expect(
      await splitNative({
        source: path.join(dir, 'missing'),
        target: path.join(dir, 'p2'),
        mode: 'line',
        per: 1,
      }),
    ).toBe('[]');
    fs.mkdirSync(path.join(dir, 'folder'));
    for (const f of ['x', 'y', 'z']) fs.writeFileSync(path.join(dir, 'folder', f), f);
    const files = await splitNative({
      source: path.join(dir, 'folder'),
      target: path.join(dir, 'p3'),
      mode: 'file',
      per: 2,
    });
    expect(JSON.parse(files)).toEqual(['part-000000', 'part-000001']);
    expect(fs.readdirSync(path.join(dir, 'p3/part-000000')).sort()).toEqual(['x', 'y']);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('a runner killed between starting a step and recording it', () => {
  /** A runtime whose steps keep running (no result) unless `done`; it remembers what it started. */
  function runtime(runDir: string, done = false): Runtime & { started: string[] } {
    const handles = new Map<string, StepHandle>();
    const started: string[] = [];
    const now = new Date().toISOString();
    return {
      name: 'held',
      capacity: { cpu: 1e6, memory: 1e6 },
      started,
      runDir: () => runDir,
      sharedDir: () => path.join(runDir, 'shared'),
      logKey: (ns, wf, pod) => `${ns}/${wf}/${pod}`,
      start(step) {
        started.push(step.pod);
        const h: StepHandle = {
          pod: step.pod,
          key: step.pod,
          startedAt: now,
          ...(done ? { result: { phase: 'Succeeded' as const, startedAt: now, finishedAt: now } } : {}),
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
  const workflow = (): Parameters<typeof operate>[0] => ({
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Workflow',
    metadata: { name: 'wf', namespace: 'ns' },
    spec: {
      entrypoint: 'main',
      templates: [
        { name: 'main', dag: { tasks: [{ name: 'a', template: 'a' }] } },
        { name: 'a', container: { name: 'main', image: 'alpine', command: ['sh', '-c', 'true'] } },
      ],
    },
  });

  it.each([
    ['before the status that created the node was written', false],
    ['with the node written Pending', true],
  ])('%s: the step is failed, never started again', (_case, pendingWritten) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'launch-mark-'));
    const wf = workflow();
    const first = runtime(dir);
    const status = operate(wf, { runtime: first, onExit: () => undefined }).status;
    expect(first.started).toHaveLength(1);
    // kill -9 now: the status above (node Running) is lost; at best a Pending node was written.
    if (pendingWritten) {
      const node = status.nodes![first.started[0]!]!;
      wf.status = { ...status, nodes: { [node.id]: { ...node, phase: 'Pending' } } };
    }
    const second = runtime(dir);
    const after = operate(wf, { runtime: second, onExit: () => undefined }).status;
    expect(second.started).toEqual([]);
    expect(after.nodes![first.started[0]!]).toMatchObject({
      phase: 'Error',
      message: 'pod deleted: the runner stopped after starting this step',
    });
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a step that ended leaves no mark: the node recreated by a retry starts', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'launch-mark-'));
    const done = runtime(dir, true);
    expect(operate(workflow(), { runtime: done, onExit: () => undefined }).status.phase).toBe('Succeeded');
    const again = runtime(dir, true);
    expect(operate(workflow(), { runtime: again, onExit: () => undefined }).status.phase).toBe('Succeeded');
    expect(again.started).toEqual(done.started);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
