// Log socket throughput: a step prints N lines (1,000,000 by default) and a WebSocket client on
// /log/{run}/{sandboxId}/{name} receives them — the whole path the dashboard's terminal uses: the
// runner's log file → its argo-server subset (NDJSON) → the generated Argo client in the API → the
// socket's JSON frames. Measured: following the step while it prints (connected before it starts
// printing), a 100,000-line tail of the finished log, and the whole-log download over HTTP.
// `npm run bench:logs [lines]` (= npx tsx bench/logs/run.ts). kube-lite, the operator and the
// process runtime in this process; the API on 127.0.0.1.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import pino from 'pino';
import WebSocket from 'ws';
import {
  attachTerminal,
  closeServices,
  createApp,
  createMailer,
  defaultApiConfig,
  servicesFor,
  type ApiDeps,
} from '@sandflow/api';
import { createTestDatabase, createWorld, destroyTestDatabase } from '@sandflow/api/testing';
import type { Run } from '@sandflow/crds';
import { chain, startEnv, until } from '@sandflow/embedded/testing';

const LINES = Number(process.argv[2] ?? 1_000_000);
const log = (line: string) => process.stdout.write(`${line}\n`);

const env = await startEnv();
const db = await createTestDatabase();
const world = await createWorld(db);
const config = defaultApiConfig();
const deps: ApiDeps = {
  db,
  kube: env.kc,
  logger: pino({ level: 'silent' }),
  mailer: createMailer({ db, from: config.mailFrom }),
  config,
  argo: env.runner.argoServer!,
};
const ns = `sf-${world.a.org.slug}-${world.a.group.slug}`;
// The pause lets the socket connect (and follow) before the first line is printed.
await chain(env, ns, { printer: `sleep 3; seq 1 ${LINES}` });
const server = createServer(createApp(deps));
attachTerminal(server, deps);
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
await servicesFor(deps).resources!.synced;
const token = await servicesFor(deps).tokens.signAccessToken({
  userId: world.a.target.id,
  organizationId: world.a.org.id,
});
const headers = { authorization: `Bearer ${token}` };

const runOf = async () =>
  (await env.api.getNamespacedCustomObject({
    group: 'sandflow.io',
    version: 'v1alpha1',
    plural: 'runs',
    namespace: ns,
    name: 'bench',
  })) as Run;
await env.api.createNamespacedCustomObject({
  group: 'sandflow.io',
  version: 'v1alpha1',
  plural: 'runs',
  namespace: ns,
  body: {
    apiVersion: 'sandflow.io/v1alpha1',
    kind: 'Run',
    metadata: { name: 'bench', labels: { 'sandflow.io/organization': world.a.org.id } },
    spec: { session: 'sess', owner: world.a.target.id, group: world.a.group.id, trigger: 'manual' },
  },
});

/** Lines received on the socket until `end`, and the time from the first log frame to `end`. */
function receive(tail: number) {
  return new Promise<{ lines: number; ms: number; live: boolean; frames: number }>((resolve, reject) => {
    const ws = new WebSocket(`${base.replace('http', 'ws')}/log/bench/printer/printer?tail=${tail}`, {
      headers,
    });
    let lines = 0;
    let frames = 0;
    let first = 0;
    let live = false;
    ws.on('message', (data) => {
      const frame = JSON.parse(String(data)) as {
        live?: boolean;
        log?: string;
        end?: boolean;
        error?: string;
      };
      if (frame.live !== undefined) live = frame.live;
      if (frame.log) {
        first ||= performance.now();
        frames++;
        for (let i = frame.log.indexOf('\n'); i >= 0; i = frame.log.indexOf('\n', i + 1)) lines++;
      }
      if (frame.error) reject(new Error(frame.error));
      if (frame.end) {
        ws.close();
        resolve({ lines, ms: performance.now() - first, live, frames });
      }
    });
    ws.once('unexpected-response', (_req, res) => reject(new Error(`refused: ${res.statusCode}`)));
  });
}

const rate = (lines: number, ms: number) => `${Math.round(lines / (ms / 1000)).toLocaleString('en')} lines/s`;
log(
  `bench:logs — ${LINES.toLocaleString('en')} lines, ${os.cpus().length} CPUs, load ${os.loadavg()[0]!.toFixed(1)}`,
);

await until(async () => (await runOf()).status?.sandboxStatuses?.[0]?.status === 'RUNNING', 60_000);
const followed = await receive(0);
log(
  `follow (connected before the first line, live=${followed.live}): ${followed.lines.toLocaleString('en')} lines in ${(followed.ms / 1000).toFixed(2)} s, ${followed.frames} frames — ${rate(followed.lines, followed.ms)}`,
);
await until(async () => (await runOf()).status?.phase === 'COMPLETED', 120_000);

const tail = await receive(100_000);
log(
  `tail of the finished log: ${tail.lines.toLocaleString('en')} lines in ${tail.ms.toFixed(0)} ms — ${rate(tail.lines, tail.ms)}`,
);

const started = performance.now();
const res = await fetch(`${base}/api/v0/file/bench/printer/printer`, { headers });
let downloaded = 0;
let bytes = 0;
for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
  bytes += chunk.length;
  for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) downloaded++;
}
const ms = performance.now() - started;
log(
  `download (GET /file/bench/printer/printer): ${downloaded.toLocaleString('en')} lines, ${(bytes / 1e6).toFixed(1)} MB in ${(ms / 1000).toFixed(2)} s — ${rate(downloaded, ms)}`,
);

server.closeAllConnections();
server.close();
await closeServices(deps);
await destroyTestDatabase(db);
await env.close();
