import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { Controller } from '../controllers/base.js';
import { Metrics } from './metrics.js';

type Labels = Record<string, string>;

/** The value of one sample in a text exposition, read line by line as a scraper would. */
function sample(text: string, name: string, labels: Labels = {}): number | undefined {
  const want = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .sort();
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have: string[] = (m[2] ?? '').match(/[a-zA-Z_]+="(?:[^"\\]|\\.)*"/g) ?? [];
    if (want.every((w) => have.includes(w)) && have.length === want.length) return Number(m[3]);
  }
  return undefined;
}

/** A controller whose reconcile fails for keys starting with "bad", and the metrics it writes to. */
function fixture() {
  const metrics = new Metrics({ processMetrics: false });
  const done: string[] = [];
  const controller = new Controller(
    'widget',
    pino({ level: 'silent' }),
    metrics,
    async (key) => {
      done.push(key);
      if (key.startsWith('bad')) throw new Error(`cannot reconcile ${key}`);
    },
    1,
  );
  const settle = async (n: number) => {
    while (done.length < n) await new Promise((r) => setTimeout(r, 5));
    await controller.queue.shutdown();
  };
  return { metrics, controller, settle };
}

describe('operator metrics (prom-client)', () => {
  it.each([
    { keys: ['ns/a', 'ns/b'], success: 2, error: undefined, observed: 2 },
    { keys: ['ns/a', 'bad/x'], success: 1, error: 1, observed: 2 },
    { keys: ['bad/x'], success: undefined, error: 1, observed: 1 },
  ])('reconciles of $keys count $success ok / $error failed', async ({ keys, success, error, observed }) => {
    const { metrics, controller, settle } = fixture();
    for (const k of keys) controller.add(k);
    await settle(keys.length);
    const text = await metrics.render();
    const c = { controller: 'widget' };
    expect(text).toContain('# TYPE sandflow_operator_reconcile_duration_seconds histogram');
    expect(sample(text, 'sandflow_operator_reconciles_total', { ...c, result: 'success' })).toBe(success);
    expect(sample(text, 'sandflow_operator_reconciles_total', { ...c, result: 'error' })).toBe(error);
    expect(sample(text, 'sandflow_operator_reconcile_errors_total', c)).toBe(error);
    expect(sample(text, 'sandflow_operator_reconcile_duration_seconds_count', c)).toBe(observed);
    expect(sample(text, 'sandflow_operator_reconcile_duration_seconds_bucket', { ...c, le: '+Inf' })).toBe(
      observed,
    );
    expect(sample(text, 'sandflow_operator_reconcile_duration_seconds_sum', c)).toBeGreaterThan(0);
    expect(sample(text, 'sandflow_operator_queue_depth', c)).toBe(0);
  });

  it('keeps each registry apart and escapes label values', async () => {
    const a = new Metrics({ processMetrics: false });
    const b = new Metrics({ processMetrics: false });
    a.runPhases.set({ phase: 'say "hi"\n' }, 3);
    a.leader.set(1);
    const text = await a.render();
    expect(text).toContain('sandflow_runs{phase="say \\"hi\\"\\n"} 3');
    expect(sample(text, 'sandflow_operator_leader')).toBe(1);
    expect(sample(await b.render(), 'sandflow_operator_leader')).toBe(0);
  });

  it('adds the process metrics unless told not to', async () => {
    expect(sample(await new Metrics().render(), 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(await new Metrics({ processMetrics: false }).render()).not.toContain('process_resident_memory');
  });
});
