import { describe, expect, it } from 'vitest';
import { Metrics } from './metrics.js';

describe('Prometheus text exposition', () => {
  it('renders counters and gauges with escaped labels', () => {
    const m = new Metrics();
    m.reconciles.inc({ controller: 'run', result: 'ok' });
    m.reconciles.inc({ controller: 'run', result: 'ok' }, 2);
    m.queueDepth.set({ controller: 'workflow' }, 4);
    m.runPhases.set({ phase: 'say "hi"\n' }, 1);
    const text = m.render();
    expect(text).toContain('# TYPE sandflow_operator_reconciles_total counter');
    expect(text).toMatch(/^sandflow_operator_reconciles_total\{controller="run",result="ok"\} 3$/m);
    expect(text).toMatch(/^sandflow_operator_queue_depth\{controller="workflow"\} 4$/m);
    expect(text).toContain('sandflow_runs{phase="say \\"hi\\"\\n"} 1');
    expect(text).toMatch(/^process_resident_memory_bytes \d+$/m);
  });
});
