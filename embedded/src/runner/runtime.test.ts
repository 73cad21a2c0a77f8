// A step whose files cannot be written (a full disk: ENOSPC) must still end, and give its reservation
// back. Found by tests/faults/full-disk.test.ts: the pid file written after the spawn failed, the
// exception left start() before the exit listener was attached, so the step's process ran and ended
// unseen and its node stayed Running for good. Here the same failures are made without a full disk:
// a folder where the runtime writes a file makes that write fail (EISDIR) at the same place.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ProcessRuntime, type StepHandle, type StepSpec } from './runtime.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sandflow-runtime-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const spec = (pod: string, captureResult: boolean): StepSpec => ({
  pod,
  namespace: 'ns',
  workflow: 'wf',
  command: ['/bin/sh', '-c', 'echo done'],
  env: {},
  captureResult,
  requests: { cpu: 100, memory: 64 },
});

/** Starts the step with `blocked` (a path under its pod folder) made a folder; resolves on its exit. */
function startBlocked(rt: ProcessRuntime, step: StepSpec, blocked: string) {
  fs.mkdirSync(path.join(rt.runDir(step.namespace, step.workflow), step.pod, blocked), {
    recursive: true,
  });
  let exited!: (h: StepHandle) => void;
  const exit = new Promise<StepHandle>((r) => (exited = r));
  const outcome = rt.start(step, exited);
  return { outcome, exit };
}

describe('a step whose files cannot be written', { timeout: 20_000 }, () => {
  it.each<[string, string, boolean, RegExp | string]>([
    ['the pid file (after the spawn)', 'pid', false, 'Succeeded'],
    ['the pid file, with stdout captured', 'pid', true, 'Succeeded'],
    ['the log file (before the spawn)', 'main.log', false, /^failed to start container: EISDIR/],
  ])('%s: the step still ends and frees its reservation', async (_, blocked, capture, expected) => {
    const rt = new ProcessRuntime({ root, capacity: { cpu: 1000, memory: 1024 }, gracePeriodSeconds: 1 });
    const step = spec(`pod-${blocked}-${String(capture)}`, capture);
    const { outcome, exit } = startBlocked(rt, step, blocked);
    expect(outcome).toHaveProperty('started');
    const h = await exit;
    expect(rt.get(step.pod)).toBe(h);
    if (typeof expected === 'string') {
      expect(h.result).toMatchObject({ phase: expected, exitCode: 0 });
      if (capture) expect(h.result?.result).toBe('done');
    } else {
      expect(h.result?.phase).toBe('Error');
      expect(h.result?.message).toMatch(expected);
    }
    expect(rt.used()).toEqual({ cpu: 0, memory: 0 });
    await rt.close();
  });
});
