// The API under load next to a bare Express handler measured in the same run:
// `npx tsx bench/api/run.ts [seconds] [rate]`. PGlite in memory (SANDFLOW_TEST_DATABASE_URL:
// PostgreSQL); the load runs in a separate process. Two phases per endpoint, on 100 keep-alive
// connections: a closed loop (throughput at saturation, compared with the bare handler), then a
// fixed total rate (default 500 req/s) for the latency at a load the server can carry.
import { execFile } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import express from 'express';
import pino from 'pino';
import {
  closeServices,
  createApp,
  createMailer,
  defaultApiConfig,
  servicesFor,
  type ApiDeps,
} from '@sandflow/api';
import { createTestDatabase, createWorld, destroyTestDatabase } from '@sandflow/api/testing';

const seconds = process.argv[2] ?? '10';
const RATE = Number(process.argv[3] ?? '500');
const CONNECTIONS = 100;
const run = promisify(execFile);
const loadScript = fileURLToPath(new URL('./load.ts', import.meta.url));

async function listen(app: express.Express): Promise<{ base: string; close(): void }> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

interface Measured {
  mode: string;
  requests: number;
  failures: number;
  rps: number;
  p50: number;
  p99: number;
  max: number;
  sentP99?: number;
}

async function load(url: string, authorization?: string, rate?: number): Promise<Measured> {
  const { stdout } = await run(
    'npx',
    [
      'tsx',
      loadScript,
      url,
      String(CONNECTIONS),
      seconds,
      ...(rate ? [`--rate=${rate}`] : []),
      ...(authorization ? [`--auth=${authorization}`] : []),
    ],
    { maxBuffer: 1 << 20 },
  );
  return JSON.parse(stdout) as Measured;
}

const db = await createTestDatabase();
const config = defaultApiConfig();
const deps: ApiDeps = {
  db,
  kube: null,
  logger: pino({ level: 'silent' }),
  mailer: createMailer({ db, from: config.mailFrom }),
  config,
};
const world = await createWorld(db);
const events = servicesFor(deps).events;
for (let i = 0; i < 200; i++) {
  await events.record(
    { userId: world.a.orgAdmin.id, name: 'bench' },
    { kind: 'sandboxes', action: 'create', subject: `s${i}`, organizationId: world.a.org.id },
  );
}
const token = await servicesFor(deps).tokens.signAccessToken({
  userId: world.a.orgAdmin.id,
  organizationId: world.a.org.id,
});

const api = await listen(createApp(deps));
const bare = express();
bare.get('/bare', (_req, res) => {
  res.json({ result: { ok: true }, status: 200 });
});
const baseline = await listen(bare);

const targets: [string, string, string | undefined][] = [
  ['bare express', `${baseline.base}/bare`, undefined],
  ['GET /me', `${api.base}/api/v0/me`, `Bearer ${token}`],
  ['GET /illumina/events', `${api.base}/api/v0/illumina/events?page=0`, `Bearer ${token}`],
];
const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
process.stdout.write(`load average before: ${loadAverage()} (${os.cpus().length} cores)\n`);
const saturated: Record<string, Measured> = {};
const paced: Record<string, Measured> = {};
for (const [name, url, authorization] of targets) {
  saturated[name] = await load(url, authorization);
  paced[name] = await load(url, authorization, RATE);
}
process.stdout.write(`load average after:  ${loadAverage()}\n`);

const ms = (n: number) => `${n.toFixed(1)} ms`.padStart(9);
const bareRps = saturated['bare express']!.rps;
process.stdout.write(`\nclosed loop, ${CONNECTIONS} connections (saturated):\n`);
for (const [name, r] of Object.entries(saturated)) {
  process.stdout.write(
    `${name.padEnd(22)} ${r.rps.toFixed(0).padStart(6)} req/s  ratio ${(r.rps / bareRps).toFixed(2)}  p50 ${ms(r.p50)}  p99 ${ms(r.p99)}${r.failures ? `  ${r.failures} failed` : ''}\n`,
  );
}
process.stdout.write(`\nfixed ${RATE} req/s over ${CONNECTIONS} connections:\n`);
for (const [name, r] of Object.entries(paced)) {
  process.stdout.write(
    `${name.padEnd(22)} ${r.rps.toFixed(0).padStart(6)} req/s  (${((RATE / saturated[name]!.rps) * 100).toFixed(0)} % of its saturated rate)  p50 ${ms(r.p50)}  p99 ${ms(r.p99)}  max ${ms(r.max)}  p99 from sending ${ms(r.sentP99 ?? NaN)}${r.failures ? `  ${r.failures} failed` : ''}\n`,
  );
}
api.close();
baseline.close();
await closeServices(deps);
await destroyTestDatabase(db);
