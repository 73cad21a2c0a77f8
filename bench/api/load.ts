// Closed-loop HTTP load: N keep-alive connections, each sending its next request as soon
// as the previous answer arrives. Prints { requests, seconds, rps, p50, p99 } as JSON.
// Usage: tsx bench/api/load.ts <url> <connections> <seconds> [authorization header]
import http from 'node:http';

const [url, connectionsArg = '100', secondsArg = '10', authorization] = process.argv.slice(2);
const connections = Number(connectionsArg);
const seconds = Number(secondsArg);
const target = new URL(url!);
const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
const headers = authorization ? { authorization } : {};

function once(): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.get(
      { agent, host: target.hostname, port: target.port, path: target.pathname + target.search, headers },
      (res) => {
        res.resume();
        res.on('end', () =>
          res.statusCode === 200
            ? resolve(performance.now() - started)
            : reject(new Error(`status ${res.statusCode}`)),
        );
      },
    );
    req.on('error', reject);
  });
}

async function run(durationMs: number, record: boolean) {
  const latencies: number[] = [];
  const until = performance.now() + durationMs;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < until) {
        const latency = await once();
        if (record) latencies.push(latency);
      }
    }),
  );
  return latencies;
}

await run(2000, false); // warm-up: JIT, connection setup
const latencies = await run(seconds * 1000, true);
latencies.sort((a, b) => a - b);
const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
process.stdout.write(
  JSON.stringify({
    requests: latencies.length,
    seconds,
    rps: latencies.length / seconds,
    p50: at(0.5),
    p99: at(0.99),
  }) + '\n',
);
agent.destroy();
