// GET /sandbox over 5,000 sandboxes of one organization next to a bare Express handler in the same
// run (the ratio of bench/api), then the time from a create through the Kubernetes API (what
// `kubectl apply` sends) to the sandbox's appearance in GET /sandbox.
// `npm run bench:sandboxes [seconds] [sandboxes]` (= npx tsx bench/sandboxes/run.ts). kube-lite and
// PGlite in memory; the load runs in a separate process (bench/api/load.ts).
import { execFile } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import express from 'express';
import pino from 'pino';
import {
  closeServices,
  createApp,
  createKubeTenancy,
  createMailer,
  defaultApiConfig,
  resourcesSynced,
  servicesFor,
  type ApiDeps,
} from '@sandflow/api';
import { createTestDatabase, createWorld, destroyTestDatabase } from '@sandflow/api/testing';
import { CRD_DIR } from '@sandflow/crds';
import {
  createTestDatabase as createKubeDatabase,
  installCrds,
  readCrds,
  startKubeLite,
} from '@sandflow/embedded/testing';
import { KINDS, Kube } from '@sandflow/kube';

const seconds = process.argv[2] ?? '10';
const COUNT = Number(process.argv[3] ?? '5000');
const CONNECTIONS = 50;
const APPEARANCES = 100;
const run = promisify(execFile);
const loadScript = fileURLToPath(new URL('../api/load.ts', import.meta.url));
const log = (line: string) => process.stdout.write(`${line}\n`);

async function listen(app: express.Express) {
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

interface Measured {
  rps: number;
  p50: number;
  p99: number;
  failures: number;
}
async function load(url: string, authorization?: string): Promise<Measured> {
  const args = ['tsx', loadScript, url, String(CONNECTIONS), seconds];
  if (authorization) args.push(`--auth=${authorization}`);
  const { stdout } = await run('npx', args, { maxBuffer: 1 << 20 });
  return JSON.parse(stdout) as Measured;
}

const kubeDb = await createKubeDatabase();
const kubeLite = await startKubeLite({ db: kubeDb, port: 0, host: '127.0.0.1' });
const kubeConfig = new KubeConfig();
kubeConfig.loadFromOptions({
  clusters: [
    { name: 'kube-lite', server: kubeLite.url, caData: Buffer.from(kubeLite.caCert).toString('base64') },
  ],
  users: [{ name: 'bench', token: kubeLite.token }],
  contexts: [{ name: 'kube-lite', cluster: 'kube-lite', user: 'bench' }],
  currentContext: 'kube-lite',
});
await installCrds(kubeConfig, readCrds(CRD_DIR));

const db = await createTestDatabase();
const world = await createWorld(db);
const namespace = `sf-${world.a.org.slug}`;
await createKubeTenancy(kubeConfig).syncOrganization(world.a.org);
const kube = new Kube(kubeConfig);
const owners = [world.a.user, world.a.target, world.a.orgAdmin];
const sandbox = (name: string, i: number) => ({
  apiVersion: 'sandflow.io/v1alpha1',
  kind: 'Sandbox',
  metadata: { name, labels: { 'sandflow.io/organization': world.a.org.id } },
  spec: {
    name: `box_${i}`,
    version: `1.${i % 10}.0`,
    entrypoint: '/entrypoint.sh',
    description: `benchmark sandbox ${i}`,
    owner: owners[i % owners.length]!.id,
    variables: [{ name: 'N', value: String(i) }],
    // A third are shared with the organization, so the caller sees both kinds.
    ...(i % 3 === 0 ? { visibility: { type: 'public' } } : {}),
  },
});
const started = performance.now();
for (let i = 0; i < COUNT; i += 50)
  await Promise.all(
    Array.from({ length: Math.min(50, COUNT - i) }, (_, j) =>
      kube.create(KINDS.sandbox, namespace, sandbox(`bench-${i + j}`, i + j)),
    ),
  );
log(
  `${COUNT} sandboxes created through the Kubernetes API in ${((performance.now() - started) / 1000).toFixed(1)} s`,
);

const config = defaultApiConfig();
const deps: ApiDeps = {
  db,
  kube: kubeConfig,
  logger: pino({ level: 'silent' }),
  mailer: createMailer({ db, from: config.mailFrom }),
  config,
};
const api = await listen(createApp(deps));
const syncStart = performance.now();
await servicesFor(deps).resources!.synced;
log(`caches synced in ${(performance.now() - syncStart).toFixed(0)} ms (ready: ${resourcesSynced(deps)})`);
const token = await servicesFor(deps).tokens.signAccessToken({
  userId: world.a.user.id,
  organizationId: world.a.org.id,
});
const authorization = `Bearer ${token}`;
const first = await fetch(`${api.base}/api/v0/sandbox?size=30`, { headers: { authorization } });
const page = (await first.json()) as { result: { total: number; sandboxes: unknown[] } };
log(`GET /sandbox answers ${page.result.sandboxes.length} of ${page.result.total} visible`);

const bare = express();
bare.get('/bare', (_req, res) => {
  res.json({ result: { ok: true }, status: 200 });
});
const baseline = await listen(bare);

const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
log(`load average before: ${loadAverage()} (${os.cpus().length} cores)`);
const targets: [string, string, string | undefined][] = [
  ['bare express', `${baseline.base}/bare`, undefined],
  ['GET /sandbox', `${api.base}/api/v0/sandbox?size=30`, authorization],
  [
    'GET /sandbox search',
    `${api.base}/api/v0/sandbox?size=30&search=box_12&sort=name&order=asc`,
    authorization,
  ],
];
const results: Record<string, Measured> = {};
for (const [name, url, auth] of targets) results[name] = await load(url, auth);
log(`load average after:  ${loadAverage()}`);
const bareRps = results['bare express']!.rps;
log(`\nclosed loop, ${CONNECTIONS} connections, ${seconds} s:`);
for (const [name, r] of Object.entries(results))
  log(
    `${name.padEnd(20)} ${r.rps.toFixed(0).padStart(6)} req/s  ratio ${(r.rps / bareRps).toFixed(3)}  p50 ${r.p50.toFixed(1)} ms  p99 ${r.p99.toFixed(1)} ms${r.failures ? `  ${r.failures} failed` : ''}`,
  );

// From the create call to the first GET /sandbox that lists it (polled back to back).
const delays: number[] = [];
for (let i = 0; i < APPEARANCES; i++) {
  const name = `appear-${i}`;
  const t0 = performance.now();
  await kube.create(KINDS.sandbox, namespace, {
    ...sandbox(name, i),
    spec: { ...sandbox(name, i).spec, name: `appear_${i}`, visibility: { type: 'public' } },
  });
  for (;;) {
    const res = await fetch(`${api.base}/api/v0/sandbox?size=10&search=appear_${i}`, {
      headers: { authorization },
    });
    const body = (await res.json()) as { result: { total: number } };
    if (body.result.total > 0) break;
  }
  delays.push(performance.now() - t0);
}
delays.sort((a, b) => a - b);
const at = (q: number) => delays[Math.min(delays.length - 1, Math.floor(q * delays.length))]!.toFixed(1);
log(
  `\ncreate → listed by GET /sandbox, ${APPEARANCES} sandboxes: p50 ${at(0.5)} ms  p99 ${at(0.99)} ms  max ${at(1)} ms`,
);

api.close();
baseline.close();
await closeServices(deps);
await destroyTestDatabase(db);
await kubeLite.close();
await kubeDb.destroy();
