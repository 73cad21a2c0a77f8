// The API's Prometheus metrics (prom-client): request latency by route template and status class.
// Labels come from the matched route's template (`/organizations/:id`), never from the raw URL, so
// ids in paths cannot grow the number of series without bound.
import type { Request, RequestHandler } from 'express';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** From a cached read (about a millisecond) to an argon2 hash or a Kubernetes round trip. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

export interface ApiMetricsOptions {
  /**
   * Register into this registry (the all-in-one process shares the operator's, which already has
   * the process metrics). Without it the API gets a registry of its own with the process metrics.
   */
  registry?: Registry;
}

export class ApiMetrics {
  readonly registry: Registry;
  readonly latency: Histogram<'method' | 'route' | 'status_class'>;

  constructor(options: ApiMetricsOptions = {}) {
    this.registry = options.registry ?? new Registry();
    if (!options.registry) collectDefaultMetrics({ register: this.registry });
    this.latency = new Histogram({
      name: 'sandflow_api_request_duration_seconds',
      help: 'API request latency, by method, route template and status class (2xx, 4xx, ...).',
      labelNames: ['method', 'route', 'status_class'] as const,
      buckets: LATENCY_BUCKETS,
      registers: [this.registry],
    });
  }

  /** Mount first on the router whose requests are timed; `base` is where that router is mounted. */
  observe(base: string): RequestHandler {
    return (req, res, next) => {
      const stop = this.latency.startTimer();
      res.once('finish', () =>
        stop({
          method: req.method,
          route: routeOf(req, base),
          status_class: `${Math.floor(res.statusCode / 100)}xx`,
        }),
      );
      next();
    };
  }

  /** GET /metrics: the text exposition of the registry. */
  readonly serve: RequestHandler = async (_req, res) => {
    res.type(this.registry.contentType).send(await this.registry.metrics());
  };
}

/** The matched route's template; requests no route matched share one label. */
function routeOf(req: Request, base: string): string {
  const path = (req.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' ? `${base}${path}` : 'unmatched';
}

/**
 * The agent hub's metrics (api/src/agents/hub.ts), registered into the API's registry (or, in the
 * all-in-one process, the operator's) so one /metrics shows them beside the request latency.
 */
export class AgentHubMetrics {
  readonly connected: Gauge;
  readonly assignments: Counter<'kind'>;
  readonly refused: Counter<'reason'>;
  readonly beats: Counter;
  readonly beatSeconds: Histogram;

  constructor(registry: Registry) {
    this.connected = new Gauge({
      name: 'sandflow_agents_connected',
      help: 'Agents connected to this API now (one per cluster manager).',
      registers: [registry],
    });
    this.assignments = new Counter({
      name: 'sandflow_agent_assignments_sent_total',
      help: 'Messages sent to agents about their workflows: apply (an assignment or its change) and delete.',
      labelNames: ['kind'] as const,
      registers: [registry],
    });
    this.refused = new Counter({
      name: 'sandflow_agent_messages_refused_total',
      help: 'Agent messages refused: invalid (schema), not_assigned (status for a workflow not its own).',
      labelNames: ['reason'] as const,
      registers: [registry],
    });
    this.beats = new Counter({
      name: 'sandflow_agent_heartbeats_total',
      help: 'Heartbeats (hello and beat) handled.',
      registers: [registry],
    });
    this.beatSeconds = new Histogram({
      name: 'sandflow_agent_heartbeat_duration_seconds',
      help: 'Time to handle one heartbeat (lastSeen and, when changed, the resources written).',
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    });
  }
}
