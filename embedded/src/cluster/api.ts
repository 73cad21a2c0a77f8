// Cluster mode, API Deployment: the API and the console's files on one port, against the cluster
// it runs in (in-cluster service-account credentials) and an external PostgreSQL (DATABASE_URL).
// N replicas share the database and the JWT key (both from the chart's Secret). No operator, no
// runner, no kube-lite here: those are the operator Deployment and Argo Workflows. No sandbox
// builder either (embedded mode's runs on bwrap; the cluster-mode builder Pod is not written yet):
// the builder routes answer 503, as in embedded mode without bwrap. Started by the
// Helm chart and config/api as `node --import tsx embedded/src/cluster/api.ts`.
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import {
  ApiMetrics,
  answerClientErrors,
  attachRealtime,
  attachTerminal,
  closeServices,
  createApp,
  createMailer,
  ensureSuperAdmin,
  loadApiConfig,
  migrateApi,
  resourcesSynced,
  type ApiDeps,
} from '@sandflow/api';
import { LayoutStore } from '@sandflow/images';
import express from 'express';
import pino from 'pino';
import { z } from 'zod';
import { consoleAssets } from '../console-assets.js';
import { createDatabase } from '../db/database.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

const envSchema = z.object({
  DATABASE_URL: z
    .string({
      error: 'required: the URL of the external PostgreSQL (postgres://user:password@host/database)',
    })
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL'),
  // Every replica must sign and check tokens with the same key: no per-process random one here.
  SANDFLOW_JWT_SECRET: z
    .string({ error: 'required: the key that signs sessions, the same for every replica' })
    .min(32, 'must be at least 32 characters'),
  SANDFLOW_PORT: z.coerce.number().int().min(1).max(65535).default(8080),
  SANDFLOW_CONSOLE_DIR: z.string().min(1).optional(),
  SANDFLOW_DATA_DIR: z.string().min(1).default('/tmp/sandflow'),
  SANDFLOW_ARGO_SERVER: z.string().url().optional(),
  SANDFLOW_ARGO_TOKEN: z.string().min(1).optional(),
  SANDFLOW_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

async function main(): Promise<void> {
  const parsed = envSchema.safeParse(process.env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`invalid configuration: ${problems}`);
  }
  const env = parsed.data;
  const log = pino({ name: 'sandflow-api', level: env.SANDFLOW_LOG_LEVEL });
  const apiConfig = loadApiConfig(process.env);
  const db = createDatabase({ url: env.DATABASE_URL });
  await db.raw('select 1');
  await migrateApi(db); // knex's migration lock keeps concurrent replicas from racing
  const kc = new KubeConfig();
  kc.loadFromDefault();
  const deps: ApiDeps = {
    db,
    kube: kc,
    logger: log,
    config: apiConfig,
    mailer: createMailer({ db, smtpUrl: apiConfig.smtpUrl, from: apiConfig.mailFrom }),
    // The read-only root filesystem leaves only the emptyDir for the image layout (a pull cache).
    images: { layout: new LayoutStore(path.join(env.SANDFLOW_DATA_DIR, 'images')) },
    ...(env.SANDFLOW_ARGO_SERVER
      ? {
          argo: {
            url: env.SANDFLOW_ARGO_SERVER,
            ...(env.SANDFLOW_ARGO_TOKEN ? { token: env.SANDFLOW_ARGO_TOKEN } : {}),
          },
        }
      : {}),
  };
  await ensureSuperAdmin(deps, (line) => console.log(line));

  let ready = true;
  const app = express();
  app.disable('x-powered-by');
  app.get('/healthz', (_req, res) => {
    res.type('text/plain').send('ok');
  });
  app.get('/readyz', async (_req, res) => {
    try {
      await db.raw('select 1');
      if (!ready) throw new Error('shutting down');
      if (!resourcesSynced(deps)) throw new Error('sandboxes and workflows not listed yet');
      res.json({ status: 'ok' });
    } catch (e) {
      res
        .status(503)
        .type('text/plain')
        .send(`not ready: ${(e as Error).message}`);
    }
  });
  app.use(createApp(deps, new ApiMetrics()));
  app.use(consoleAssets(env.SANDFLOW_CONSOLE_DIR ?? path.join(repoRoot, 'console/dist')));
  const server = http.createServer(app);
  answerClientErrors(server); // the JSON envelope, not a bare 431/400, for requests Node's parser refuses
  const realtime = attachRealtime(server, deps);
  const terminal = attachTerminal(server, deps);
  // All interfaces: the kubelet's probes and the Service reach the Pod on its own address.
  await new Promise<void>((resolve) => server.listen(env.SANDFLOW_PORT, '0.0.0.0', resolve));
  log.info({ port: env.SANDFLOW_PORT, server: kc.getCurrentCluster()?.server }, 'sandflow api serving');

  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      ready = false;
      log.info({ signal }, 'stopping');
      realtime.close();
      terminal.close();
      server.closeAllConnections();
      server.close(() => {
        void closeServices(deps)
          .then(() => db.destroy())
          .then(() => process.exit(0));
      });
    });
}

main().catch((e: unknown) => {
  console.error(e instanceof Error && e.message.startsWith('invalid configuration:') ? e.message : e);
  process.exit(1);
});
