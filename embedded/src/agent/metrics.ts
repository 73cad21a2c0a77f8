// The agent's Prometheus metrics (prom-client), served by `sandflow agent --metrics-port N` on
// 127.0.0.1:N/metrics (off by default: an agent behind NAT has no one to scrape it unless asked).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';

export const CONNECTION_STATES = ['connecting', 'connected', 'closed'] as const;
export type ConnectionState = (typeof CONNECTION_STATES)[number];

export class AgentMetrics {
  readonly registry = new Registry();
  readonly connection = new Gauge({
    name: 'sandflow_agent_connection',
    help: "The agent's connection to the platform: 1 for the state it is in, 0 for the others.",
    labelNames: ['state'] as const,
    registers: [this.registry],
  });
  readonly assignments = new Counter({
    name: 'sandflow_agent_assignments_total',
    help: 'Messages about workflows received from the platform: apply (assigned or changed) and delete.',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });
  readonly beats = new Counter({
    name: 'sandflow_agent_heartbeats_sent_total',
    help: 'Heartbeats sent to the platform (the hello after each connection included).',
    registers: [this.registry],
  });
  readonly running = new Gauge({
    name: 'sandflow_agent_workflows_running',
    help: "Workflows in the agent's cluster that have not finished.",
    registers: [this.registry],
  });

  constructor(options: { processMetrics?: boolean } = {}) {
    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry });
    this.state('closed');
  }

  state(now: ConnectionState) {
    for (const s of CONNECTION_STATES) this.connection.set({ state: s }, s === now ? 1 : 0);
  }
}

/** GET /metrics on 127.0.0.1:`port` (0: any free port); everything else 404. */
export async function serveMetrics(
  metrics: AgentMetrics,
  port: number,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    metrics.registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      (e: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(e.message),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
  return {
    url,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
