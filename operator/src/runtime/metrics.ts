// Prometheus text exposition without a client library (prom-client is not a dependency): counters
// and gauges with labels, rendered on GET /metrics.
type Labels = Record<string, string>;

class Family {
  readonly values = new Map<string, { labels: Labels; value: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: 'counter' | 'gauge',
  ) {}
  private entry(labels: Labels) {
    const key = JSON.stringify(Object.entries(labels).sort());
    let e = this.values.get(key);
    if (!e) this.values.set(key, (e = { labels, value: 0 }));
    return e;
  }
  inc(labels: Labels = {}, by = 1) {
    this.entry(labels).value += by;
  }
  set(labels: Labels, value: number) {
    this.entry(labels).value = value;
  }
  reset() {
    this.values.clear();
  }
  render(): string {
    const esc = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} ${this.type}`];
    for (const { labels, value } of this.values.values()) {
      const l = Object.entries(labels).map(([k, v]) => `${k}="${esc(v)}"`);
      lines.push(`${this.name}${l.length ? `{${l.join(',')}}` : ''} ${value}`);
    }
    return lines.join('\n');
  }
}

export class Metrics {
  readonly reconciles = new Family(
    'sandflow_operator_reconciles_total',
    'Reconciles by controller and result.',
    'counter',
  );
  readonly errors = new Family(
    'sandflow_operator_reconcile_errors_total',
    'Failed reconciles by controller.',
    'counter',
  );
  readonly queueDepth = new Family(
    'sandflow_operator_queue_depth',
    'Keys waiting in the work queue by controller.',
    'gauge',
  );
  readonly runPhases = new Family('sandflow_runs', 'Runs by phase.', 'gauge');
  readonly leader = new Family('sandflow_operator_leader', '1 when this replica holds the lease.', 'gauge');
  readonly duration = new Family(
    'sandflow_operator_reconcile_seconds_sum',
    'Total reconcile time by controller.',
    'counter',
  );

  render(): string {
    const mem = process.memoryUsage();
    return (
      [this.reconciles, this.errors, this.queueDepth, this.runPhases, this.leader, this.duration]
        .map((f) => f.render())
        .join('\n') +
      `\n# HELP process_resident_memory_bytes Resident memory size in bytes.\n# TYPE process_resident_memory_bytes gauge\nprocess_resident_memory_bytes ${mem.rss}\n`
    );
  }
}
