// Cluster mode, API Deployment: the API and the console's files on one port, against the cluster
// it runs in (in-cluster service-account credentials) and an external PostgreSQL (DATABASE_URL).
// N replicas share the database and the JWT key (both from the chart's Secret). No operator, no
// runner, no kube-lite here: those are the operator Deployment and Argo Workflows. The sandbox
// builder is a Pod per builder in the organization's namespace (pod-builder/), built from the
// source image with a static busybox from SANDFLOW_BUILDER_HELPER_IMAGE, reached through pods/exec;
// SANDFLOW_BUILDER_ENABLED=false (the chart's builder.enabled, which also drops the API's rights on
// Pods) leaves it out: the builder routes then answer 503. Started by the Helm chart and config/api
// as `node --import tsx embedded/src/cluster/api.ts`.
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
  sealStoredSecrets,
  type ApiDeps,
} from '@sandflow/api';
import { LayoutStore, parseReference } from '@sandflow/images';
import express from 'express';
import pino from 'pino';
import { z } from 'zod';
import { consoleAssets } from '../console-assets.js';
import { createDatabase } from '../db/database.js';
import { podBuilderFor } from './pod-builder/index.js';

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
  // Every interface in a Pod (the Service reaches it there); tests on the host's network say 127.0.0.1.
  SANDFLOW_HOST: z
    .union([z.ipv4(), z.ipv6()], { error: 'must be an IP address to listen on' })
    .default('0.0.0.0'),
  SANDFLOW_CONSOLE_DIR: z.string().min(1).optional(),
  SANDFLOW_DATA_DIR: z.string().min(1).default('/tmp/sandflow'),
  SANDFLOW_ARGO_SERVER: z.string().url().optional(),
  SANDFLOW_ARGO_TOKEN: z.string().min(1).optional(),
  SANDFLOW_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SANDFLOW_BUILDER_ENABLED: z
    .enum(['true', 'false'], { error: "must be 'true' or 'false'" })
    .default('true')
    .transform((v) => v === 'true'),
  // Supplies /bin/busybox (static) to every builder Pod: its shell tools, listings and tar.
  SANDFLOW_BUILDER_HELPER_IMAGE: z
    .string()
    .default('busybox:1.36.1-musl')
    .refine(
      (v) => {
        try {
          parseReference(v);
          return true;
        } catch {
          return false;
        }
      },
      { error: 'must be an image reference (e.g. busybox:1.36.1-musl) with a static /bin/busybox' },
    ),
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
  // Before the services are first built (ensureSuperAdmin builds them): they take the builder then.
  const builder = env.SANDFLOW_BUILDER_ENABLED
    ? podBuilderFor(deps, {
        kubeConfig: kc,
        helperImage: env.SANDFLOW_BUILDER_HELPER_IMAGE,
        dataDir: env.SANDFLOW_DATA_DIR,
        logger: log,
      })
    : undefined;
  if (builder) deps.builder = builder;
  await ensureSuperAdmin(deps, (line) => console.log(line));
  await sealStoredSecrets(deps); // registry passwords saved in clear or under the previous key
  let builderSynced = !builder;
  void builder?.synced.then(() => (builderSynced = true));

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
      if (!builderSynced) throw new Error('sandbox builder Pods not listed yet');
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
  await new Promise<void>((resolve) => server.listen(env.SANDFLOW_PORT, env.SANDFLOW_HOST, resolve));
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
        void Promise.all([closeServices(deps), builder?.close()])
          .then(() => db.destroy())
          .then(() => process.exit(0));
      });
    });
}

main().catch((e: unknown) => {
  console.error(e instanceof Error && e.message.startsWith('invalid configuration:') ? e.message : e);
  process.exit(1);
});
