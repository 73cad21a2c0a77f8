import { randomUUID } from 'node:crypto';
import { Registry } from 'prom-client';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from './app.js';
import { ApiMetrics } from './metrics.js';
import { createHarness, type Harness } from './test-support/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

/** One series of the latency histogram, read back from the /metrics text as a scraper would. */
function series(text: string, suffix: string, labels: Record<string, string>): number | undefined {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    const m = /^sandflow_api_request_duration_seconds_(\w+)\{(.*)\} (\S+)$/.exec(line);
    if (!m || m[1] !== suffix) continue;
    const have = m[2]!.split(/,(?=\w+=")/);
    if (have.length === want.length && want.every((w) => have.includes(w))) return Number(m[3]);
  }
  return undefined;
}

describe('API metrics at /metrics', () => {
  it.each([
    {
      name: 'a public route',
      paths: ['/api/v0/illumina/preferences'],
      labels: { method: 'GET', route: '/api/v0/illumina/preferences', status_class: '2xx' },
    },
    {
      name: 'one route template for every id in the path',
      paths: [`/api/v0/group/${randomUUID()}`, `/api/v0/group/${randomUUID()}`],
      method: 'put' as const,
      labels: { method: 'PUT', route: '/api/v0/group/:id', status_class: '4xx' },
    },
    {
      name: 'unknown paths under one label',
      paths: ['/api/v0/no/such/thing', '/api/v0/nor/this'],
      labels: { method: 'GET', route: 'unmatched', status_class: '4xx' },
    },
  ])('observes $name', async ({ paths, method = 'get' as const, labels }) => {
    const request = supertest(createApp(h.deps, new ApiMetrics()));
    for (const p of paths) await request[method](p);
    const res = await request.get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    expect(res.text).toContain('# TYPE sandflow_api_request_duration_seconds histogram');
    expect(series(res.text, 'count', labels)).toBe(paths.length);
    expect(series(res.text, 'bucket', { le: '+Inf', ...labels })).toBe(paths.length);
    expect(series(res.text, 'sum', labels)).toBeGreaterThan(0);
    // Raw URLs never become labels.
    for (const p of paths.filter((x) => x !== labels.route)) expect(res.text).not.toContain(p);
    expect(res.text).toMatch(/^process_resident_memory_bytes \d+/m);
  });

  it('registers into a registry it is given, without a second set of process metrics', async () => {
    const registry = new Registry();
    const request = supertest(createApp(h.deps, new ApiMetrics({ registry })));
    await request.get('/api/v0/illumina/preferences');
    const text = await registry.metrics();
    expect(
      series(text, 'count', { method: 'GET', route: '/api/v0/illumina/preferences', status_class: '2xx' }),
    ).toBe(1);
    expect(text).not.toContain('process_resident_memory_bytes');
    expect((await request.get('/metrics')).text).toBe(text);
  });
});
