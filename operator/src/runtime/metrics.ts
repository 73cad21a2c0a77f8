// The operator's Prometheus metrics (prom-client). Each operator owns a Registry rather than using
// prom-client's global one: tests start several operators in one process, and the all-in-one
// process registers the API's metrics into the operator's registry to serve both on one /metrics.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Reconciles span a cache read (sub-millisecond) to a compile and several writes (seconds). */
const RECONCILE_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface MetricsOptions {
  /**
   * Also collect the process metrics (memory, CPU, event-loop lag, GC). On by default; each call
   * starts an event-loop monitor and a GC observer, so a process should do it once.
   */
  processMetrics?: boolean;
}

export class Metrics {
  readonly registry = new Registry();
  readonly reconciles = new Counter({
    name: 'sandflow_operator_reconciles_total',
    help: 'Reconciles by controller and result (success or error).',
    labelNames: ['controller', 'result'] as const,
    registers: [this.registry],
  });
  readonly errors = new Counter({
    name: 'sandflow_operator_reconcile_errors_total',
    help: 'Failed reconciles by controller.',
    labelNames: ['controller'] as const,
    registers: [this.registry],
  });
  readonly duration = new Histogram({
    name: 'sandflow_operator_reconcile_duration_seconds',
    help: 'Time spent in one reconcile, by controller.',
    labelNames: ['controller'] as const,
    buckets: RECONCILE_BUCKETS,
    registers: [this.registry],
  });
  readonly queueDepth = new Gauge({
    name: 'sandflow_operator_queue_depth',
    help: 'Keys waiting in the work queue, by controller.',
    labelNames: ['controller'] as const,
    registers: [this.registry],
  });
  readonly runPhases = new Gauge({
    name: 'sandflow_runs',
    help: 'Runs in the informer cache, by phase.',
    labelNames: ['phase'] as const,
    registers: [this.registry],
  });
  readonly leader = new Gauge({
    name: 'sandflow_operator_leader',
    help: '1 when this replica holds the lease.',
    registers: [this.registry],
  });

  constructor(options: MetricsOptions = {}) {
    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The text exposition of everything in the registry. */
  render(): Promise<string> {
    return this.registry.metrics();
  }
}
