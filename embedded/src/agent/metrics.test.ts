import { afterEach, describe, expect, it } from 'vitest';
import { AgentMetrics, serveMetrics } from './metrics.js';

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** One sample of the exposition text (`name{labels} value`). */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('agent metrics', () => {
  it('serves the connection state, assignments, heartbeats and running workflows on 127.0.0.1', async () => {
    const m = new AgentMetrics({ processMetrics: false });
    const served = await serveMetrics(m, 0);
    close = served.close;
    expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    m.state('connected');
    m.assignments.inc({ kind: 'apply' });
    m.assignments.inc({ kind: 'apply' });
    m.assignments.inc({ kind: 'delete' });
    m.beats.inc(3);
    m.running.set(2);
    const res = await fetch(served.url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    expect.soft(sample(text, 'sandflow_agent_connection{state="connected"}')).toBe(1);
    expect.soft(sample(text, 'sandflow_agent_connection{state="connecting"}')).toBe(0);
    expect.soft(sample(text, 'sandflow_agent_connection{state="closed"}')).toBe(0);
    expect.soft(sample(text, 'sandflow_agent_assignments_total{kind="apply"}')).toBe(2);
    expect.soft(sample(text, 'sandflow_agent_assignments_total{kind="delete"}')).toBe(1);
    expect.soft(sample(text, 'sandflow_agent_heartbeats_sent_total')).toBe(3);
    expect.soft(sample(text, 'sandflow_agent_workflows_running')).toBe(2);
  });

  it.each([
    ['another path', 'GET', '/'],
    ['another method', 'POST', '/metrics'],
  ])('answers 404 to %s', async (_name, method, path) => {
    const served = await serveMetrics(new AgentMetrics({ processMetrics: false }), 0);
    close = served.close;
    const res = await fetch(served.url.replace('/metrics', path), { method });
    expect(res.status).toBe(404);
  });

  it('starts closed, and a state change leaves exactly one state at 1', async () => {
    const m = new AgentMetrics({ processMetrics: false });
    const states = async () =>
      Object.fromEntries((await m.connection.get()).values.map((v) => [v.labels.state as string, v.value]));
    expect(await states()).toEqual({ connecting: 0, connected: 0, closed: 1 });
    m.state('connecting');
    expect(await states()).toEqual({ connecting: 1, connected: 0, closed: 0 });
  });
});
