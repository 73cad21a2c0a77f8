// The API under load next to a bare Express handler measured in the same run:
// `npx tsx bench/api/run.ts [seconds]`. PGlite in memory; the load runs in a separate process.
import { execFile } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import express from 'express';
import pino from 'pino';
import { createApp, defaultApiConfig, servicesFor, type ApiDeps } from '../../api/src/index.js';
import { createMailer } from '../../api/src/services/mailer.js';
import { createTestDatabase, destroyTestDatabase } from '../../api/src/test-support/database.js';
import { createWorld } from '../../api/src/test-support/world.js';

const seconds = process.argv[2] ?? '10';
const CONNECTIONS = 100;
const run = promisify(execFile);
const loadScript = fileURLToPath(new URL('./load.ts', import.meta.url));

async function listen(app: express.Express): Promise<{ base: string; close(): void }> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

async function load(url: string, authorization?: string) {
  const { stdout } = await run(
    'npx',
    ['tsx', loadScript, url, String(CONNECTIONS), seconds, ...(authorization ? [authorization] : [])],
    {
      maxBuffer: 1 << 20,
    },
  );
  return JSON.parse(stdout) as { requests: number; rps: number; p50: number; p99: number };
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

const results: Record<string, { rps: number; p50: number; p99: number }> = {};
results['bare express'] = await load(`${baseline.base}/bare`);
results['GET /me'] = await load(`${api.base}/api/v0/me`, `Bearer ${token}`);
results['GET /illumina/events'] = await load(`${api.base}/api/v0/illumina/events?page=0`, `Bearer ${token}`);

const bareRps = results['bare express'].rps;
for (const [name, r] of Object.entries(results)) {
  process.stdout.write(
    `${name.padEnd(22)} ${r.rps.toFixed(0).padStart(6)} req/s  ratio ${(r.rps / bareRps).toFixed(2)}  p50 ${r.p50.toFixed(1)} ms  p99 ${r.p99.toFixed(1)} ms\n`,
  );
}
api.close();
baseline.close();
await destroyTestDatabase(db);
