// HTTP load over N keep-alive connections, in one of two modes; prints
// { mode, requests, seconds, rps, p50, p99, max } as JSON (latencies in ms).
//
// - closed loop (default): each connection sends its next request as soon as the previous
//   answer arrives. Measures throughput at saturation; by Little's law the latency is then
//   connections / throughput whatever the server does, so its percentiles say little.
// - fixed rate (--rate=R): requests are started on a fixed schedule, R per second in total,
//   on the same N connections (a request whose slot finds every connection busy waits for
//   one). Latency counts from the scheduled start, so time spent queued behind a slow answer
//   is included (no coordinated omission) — and so is any moment this process itself was not
//   scheduled on a busy machine; `sentP99` counts from the moment the request was actually
//   started instead, which separates the two.
//
// Usage: tsx bench/api/load.ts <url> <connections> <seconds> [--rate=R] [--auth=<header>]
import http from 'node:http';

const positional = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const flags = Object.fromEntries(
  process.argv
    .slice(2)
    .filter((a) => a.startsWith('--'))
    .map((a) => {
      const [key, ...value] = a.slice(2).split('=');
      return [key!, value.join('=')];
    }),
);
const [url, connectionsArg = '100', secondsArg = '10'] = positional;
const connections = Number(connectionsArg);
const seconds = Number(secondsArg);
const rate = flags.rate ? Number(flags.rate) : undefined;
const target = new URL(url!);
const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
const headers = flags.auth ? { authorization: flags.auth } : {};
let failures = 0;

/** One GET; resolves with the time its answer ended. */
function once(): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get(
      { agent, host: target.hostname, port: target.port, path: target.pathname + target.search, headers },
      (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode !== 200) failures++;
          resolve(performance.now());
        });
      },
    );
    req.on('error', () => {
      failures++;
      resolve(performance.now());
    });
  });
}

async function closedLoop(durationMs: number, record: boolean): Promise<number[]> {
  const latencies: number[] = [];
  const until = performance.now() + durationMs;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < until) {
        const started = performance.now();
        const ended = await once();
        if (record) latencies.push(ended - started);
      }
    }),
  );
  return latencies;
}

const fromSent: number[] = [];

async function fixedRate(perSecond: number, durationMs: number, record: boolean): Promise<number[]> {
  const latencies: number[] = [];
  const pending: Promise<void>[] = [];
  const interval = 1000 / perSecond;
  const total = Math.round((durationMs / 1000) * perSecond);
  const start = performance.now();
  let sent = 0;
  while (sent < total) {
    // Start every request whose scheduled time has come (timers are ~1 ms coarse).
    const due = Math.min(total, Math.floor((performance.now() - start) / interval) + 1);
    for (; sent < due; sent++) {
      const scheduled = start + sent * interval;
      const actual = performance.now();
      pending.push(
        once().then((ended) => {
          if (!record) return;
          latencies.push(ended - scheduled);
          fromSent.push(ended - actual);
        }),
      );
    }
    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(0, start + sent * interval - performance.now())),
    );
  }
  await Promise.all(pending);
  return latencies;
}

const measure = (record: boolean, ms: number) =>
  rate ? fixedRate(rate, ms, record) : closedLoop(ms, record);

await measure(false, 2000); // warm-up: JIT, connection setup
failures = 0;
const started = performance.now();
const latencies = await measure(true, seconds * 1000);
const elapsed = (performance.now() - started) / 1000;
latencies.sort((a, b) => a - b);
fromSent.sort((a, b) => a - b);
const quantile = (values: number[], q: number) =>
  values[Math.min(values.length - 1, Math.floor(q * values.length))]!;
const at = (q: number) => quantile(latencies, q);
process.stdout.write(
  JSON.stringify({
    mode: rate ? `fixed ${rate}/s` : 'closed loop',
    requests: latencies.length,
    failures,
    seconds: elapsed,
    rps: latencies.length / elapsed,
    p50: at(0.5),
    p99: at(0.99),
    max: latencies[latencies.length - 1]!,
    ...(rate ? { sentP99: quantile(fromSent, 0.99) } : {}),
  }) + '\n',
);
agent.destroy();
