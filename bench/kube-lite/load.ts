// The load generator of the kube-lite benchmark (a child process of run.ts).
import type http from 'node:http';
import https from 'node:https';

const {
  url: serverUrl,
  token,
  caCert,
  CREATES,
  CONCURRENCY,
  WATCHERS,
  WATCH_EVENTS,
} = JSON.parse(process.env.BENCH!) as {
  url: string;
  token: string;
  caCert: string;
  CREATES: number;
  CONCURRENCY: number;
  WATCHERS: number;
  WATCH_EVENTS: number;
};
const kube = { caCert, token };
const url = new URL(serverUrl);
const agent = new https.Agent({ keepAlive: true, maxSockets: CONCURRENCY, ca: kube.caCert });
const headers = { Authorization: `Bearer ${kube.token}`, 'Content-Type': 'application/json' };

function request(method: string, p: string, body?: unknown): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      { hostname: url.hostname, port: url.port, path: p, method, headers, agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, text: Buffer.concat(chunks).toString() }));
      },
    );
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

await request('POST', '/api/v1/namespaces', {
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name: 'bench' },
});
const cm = (name: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, labels: { app: 'bench' } },
  data: { key: 'value', n: name },
});

// 1. creates
let next = 0;
const t0 = performance.now();
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    while (next < CREATES) {
      const i = next++;
      const res = await request('POST', '/api/v1/namespaces/bench/configmaps', cm(`cm-${i}`));
      if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text}`);
    }
  }),
);
const createSeconds = (performance.now() - t0) / 1000;
console.log(
  `creates: ${CREATES} in ${createSeconds.toFixed(2)} s = ${(CREATES / createSeconds).toFixed(0)} creates/s (${CONCURRENCY} in flight)`,
);

// 2. list of everything
const listTimes: number[] = [];
for (let i = 0; i < 7; i++) {
  const s = performance.now();
  const res = await request('GET', '/api/v1/namespaces/bench/configmaps');
  listTimes.push(performance.now() - s);
  if (JSON.parse(res.text).items.length !== CREATES)
    throw new Error('list returned the wrong number of items');
}
console.log(
  `list of ${CREATES}: median ${percentile(listTimes, 50).toFixed(1)} ms, min ${Math.min(...listTimes).toFixed(1)} ms`,
);

// 3. watch delivery
await request('POST', '/api/v1/namespaces', {
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name: 'watched' },
});
const sentAt = new Map<string, number>();
const latencies: number[] = [];
const watchAgent = new https.Agent({ keepAlive: true, maxSockets: WATCHERS + 1, ca: kube.caCert });
const streams: http.ClientRequest[] = [];
let ready = 0;
await new Promise<void>((resolve) => {
  for (let w = 0; w < WATCHERS; w++) {
    const req = https.get(
      {
        hostname: url.hostname,
        port: url.port,
        path: '/api/v1/namespaces/watched/configmaps?watch=true&resourceVersion=0',
        headers,
        agent: watchAgent,
      },
      (res) => {
        if (++ready === WATCHERS) resolve();
        let buf = '';
        res.on('data', (c: Buffer) => {
          const now = performance.now();
          buf += c.toString();
          let nl: number;
          while ((nl = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, nl);
            buf = buf.slice(nl + 1);
            const e = JSON.parse(line) as { type: string; object: { metadata: { name: string } } };
            const sent = sentAt.get(e.object.metadata.name);
            if (e.type === 'ADDED' && sent !== undefined) latencies.push(now - sent);
          }
        });
      },
    );
    streams.push(req);
  }
});
for (let i = 0; i < WATCH_EVENTS; i++) {
  const name = `w-${i}`;
  sentAt.set(name, performance.now());
  await request('POST', '/api/v1/namespaces/watched/configmaps', cm(name));
}
const deadline = Date.now() + 10_000;
while (latencies.length < WATCHERS * WATCH_EVENTS && Date.now() < deadline)
  await new Promise((r) => setTimeout(r, 20));
console.log(
  `watch: ${WATCHERS} watchers x ${WATCH_EVENTS} events, delivered ${latencies.length}; ` +
    `p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms (from create sent to event read)`,
);

for (const s of streams) s.destroy();
agent.destroy();
watchAgent.destroy();
