import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import express from 'express';
import pino from 'pino';
import { ConfigError, loadConfig } from './config.js';
import { installCrds, readCrds } from './crd-install.js';
import { createDatabase } from './db/database.js';
import { initPGliteDir } from './db/pglite.js';
import { startKubeLite, UnreadableObjectError, type KubeLite } from './kube-lite/index.js';
import {
  chooseRuntime,
  RuntimeUnavailableError,
  startRunner,
  type Runner,
  type RuntimeChoice,
} from './runner/index.js';
import { DEFAULT_PLATFORM_CLUSTER, lostAfterMs, startOperator } from '@sandflow/operator';
import {
  decodeSecretsKey,
  LABELS,
  PREVIOUS_SECRETS_KEY_VARIABLE,
  SECRETS_KEY_VARIABLE,
} from '@sandflow/kube';
import { LayoutStore } from '@sandflow/images';
import {
  AgentHub,
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
  registryCredentials,
  resourcesSynced,
  sealStoredSecrets,
  servicesFor,
  type ApiDeps,
} from '@sandflow/api';
import { createBuilder, reapBuilders } from './builder/index.js';
import { machineResources } from './machine.js';
import { loadOrCreateSecret } from './secret-file.js';
import { consoleAssets } from './console-assets.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The all-in-one process: kube-lite, the database and the one HTTP port of API and console. */
async function main(): Promise<void> {
  // Signals are taken from the first moment: one that arrives while starting up is
  // honoured as soon as there is something to stop, never swallowed.
  const signals: { stop?: (signal: string) => Promise<void>; pending?: string } = {};
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (signals.stop) void signals.stop(signal);
      else signals.pending ??= signal;
    });
  }
  const config = loadConfig();
  const log = pino({ name: 'sandflow', level: config.logLevel });
  // Where start-up memory goes (bench/memory reads these at debug level).
  const stage = (name: string) => log.debug({ stage: name, memory: process.memoryUsage() }, 'start-up stage');
  stage('modules loaded');
  // Embedded mode runs steps here: isolated by bwrap where it works, else (unset) as host processes.
  const runtime: RuntimeChoice | undefined = config.kubeconfig ? undefined : chooseRuntime(config.runtime);
  if (runtime?.warning) log.warn({ runtime: runtime.kind }, runtime.warning);
  fs.mkdirSync(config.dataDir, { recursive: true });
  const pgliteDir = path.join(config.dataDir, 'pglite');
  const kubePgliteDir = path.join(config.dataDir, 'kube-lite', 'pglite');
  // PGlite serves one connection: an API transaction that waits on the Kubernetes API
  // would deadlock with kube-lite's own writes, so kube-lite gets a PGlite of its own.
  // A real PostgreSQL (DATABASE_URL) has a pool and is shared.
  const ownKubeDb = !config.databaseUrl && !config.kubeconfig;
  if (!config.databaseUrl)
    await Promise.all([pgliteDir, ...(ownKubeDb ? [kubePgliteDir] : [])].map(initPGliteDir));
  stage('databases created');
  const db = createDatabase({ url: config.databaseUrl, pgliteDir });
  await db.raw('select 1');
  const kubeDb = ownKubeDb ? createDatabase({ pgliteDir: kubePgliteDir }) : db;
  stage('database open');

  // The key registry passwords are stored encrypted with (32 random bytes, base64url), and
  // kube-lite's Secrets at rest: kept in the data folder, since losing it loses every stored password.
  const secretsKey =
    process.env.SANDFLOW_SECRETS_KEY || loadOrCreateSecret(config.dataDir, 'secrets-key', 32);
  const previousSecretsKey = process.env.SANDFLOW_SECRETS_KEY_PREVIOUS || undefined;

  let kubeLite: KubeLite | undefined;
  const kc = new KubeConfig();
  if (config.kubeconfig) {
    kc.loadFromFile(config.kubeconfig);
    log.info(
      { kubeconfig: config.kubeconfig, server: kc.getCurrentCluster()?.server },
      'using an existing cluster',
    );
  } else {
    kubeLite = await startKubeLite({
      db: kubeDb,
      port: config.kubePort,
      dataDir: config.dataDir,
      logger: log,
      // v1 Secrets (the organizations' registry pull Secrets) encrypted at rest with the same key
      // (none when the variable is blank, as the API then has none).
      encryption: secretsKey.trim()
        ? {
            key: secretsKeyBytes(SECRETS_KEY_VARIABLE, secretsKey),
            previous: previousSecretsKey?.trim()
              ? secretsKeyBytes(PREVIOUS_SECRETS_KEY_VARIABLE, previousSecretsKey)
              : undefined,
          }
        : undefined,
    });
    kc.loadFromFile(kubeLite.kubeconfigPath!);
    stage('kube-lite started');
  }
  const crds = await installCrds(kc, readCrds(path.join(repoRoot, 'crds')));
  log.info({ crds }, 'custom resource definitions installed');
  stage('crds installed');
  // Embedded mode only: the local runner plays Argo, so Argo's Workflow and CronWorkflow kinds come from us.
  if (kubeLite) {
    const argo = await installCrds(kc, readCrds(path.join(repoRoot, 'embedded/argo-crds')));
    log.info({ crds: argo }, 'argo custom resource definitions installed (embedded mode)');
  }
  stage('argo crds installed');
  // The local runner plays Argo in embedded mode; the operator runs in both modes.
  const runner: Runner | undefined = kubeLite
    ? await startRunner({
        kc,
        dataDir: config.dataDir,
        logger: log,
        runtimeKind: runtime!.kind,
        ...(runtime!.bwrap ? { bwrap: runtime!.bwrap } : {}),
        registrySecret: config.registrySecret,
        // An explicit folder of unpacked images keeps the offline path; otherwise images are pulled.
        ...(process.env.SANDFLOW_IMAGES_DIR ? { imagesDir: config.imagesDir } : {}),
        // Workflows placed on an agent's cluster manager run there (the agent hub sends them).
        accepts: (wf) => {
          const cm = wf.metadata.labels?.[LABELS.clusterManager];
          return !cm || cm === DEFAULT_PLATFORM_CLUSTER;
        },
      })
    : undefined;
  // The operator registers and heartbeats the platform-owned ClusterManager (the capacity
  // organization quotas are capped by); in embedded mode that is this machine, measured here.
  const operator = await startOperator({
    kc,
    logger: log,
    ...(kubeLite ? { platformResources: machineResources(config.dataDir) } : {}),
  });

  stage('runner and operator started');
  await migrateApi(db);
  stage('api migrated');
  const apiConfig = loadApiConfig({
    ...process.env,
    SANDFLOW_PUBLIC_URL: process.env.SANDFLOW_PUBLIC_URL ?? `http://localhost:${config.port || 8080}`,
    // Kept in the data folder so a restart does not sign everybody out.
    SANDFLOW_JWT_SECRET:
      process.env.SANDFLOW_JWT_SECRET ?? loadOrCreateSecret(config.dataDir, 'jwt-secret', 48),
    SANDFLOW_SECRETS_KEY: secretsKey,
  });
  // The sandbox builder needs bwrap: without it there is no builder (its routes answer 503), never
  // a host shell. Containers left by a crashed process are removed first.
  const layout = new LayoutStore(path.join(config.dataDir, 'images'));
  await reapBuilders(config.dataDir);
  // Step logs and output files: argo-server on a cluster; the local runner serves its routes here.
  const argo = runner?.argoServer ?? config.argoServer;
  const apiDeps: ApiDeps = {
    db,
    kube: kc,
    logger: log.child({ component: 'api' }),
    config: apiConfig,
    mailer: createMailer({ db, smtpUrl: apiConfig.smtpUrl, from: apiConfig.mailFrom }),
    images: { layout },
    ...(argo ? { argo } : {}),
    // The local runner pulls with the default registry of Super Settings through this Secret.
    ...(runner ? { platformRegistrySecret: config.registrySecret } : {}),
  };
  const builder = runtime?.bwrap
    ? createBuilder({
        dataDir: config.dataDir,
        layout,
        bwrap: runtime.bwrap,
        credentials: (organization) => registryCredentials(apiDeps, organization),
      })
    : undefined;
  if (builder) apiDeps.builder = builder;
  // Agents of other cluster managers connect here; the runs placed on them are theirs to execute.
  const agents = new AgentHub({
    kc,
    logger: log,
    lostAfterMs: lostAfterMs(),
    registry: operator.metrics.registry, // the hub's metrics on the process's one /metrics
    verify: (token, from) => servicesFor(apiDeps).clusterTokens.verifyAgentToken(token, from),
  });
  await agents.start();
  apiDeps.agentArgo = (clusterManager) => agents.argoServerFor(clusterManager);
  await ensureSuperAdmin(apiDeps, (line) => console.log(line));
  await sealStoredSecrets(apiDeps); // registry passwords saved in clear or under the previous key

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
      if (!resourcesSynced(apiDeps)) throw new Error('sandboxes and workflows not listed yet');
      // Whether steps are isolated is part of the answer: an operator checks it before trusting runs.
      res.json({
        status: 'ok',
        ...(runtime
          ? { runtime: { kind: runtime.kind, isolated: runtime.isolated, warning: runtime.warning } }
          : {}),
      });
    } catch (e) {
      res
        .status(503)
        .type('text/plain')
        .send(`not ready: ${(e as Error).message}`);
    }
  });
  // One registry for the process: the API's metrics join the operator's (which has the process
  // metrics), and the API app serves them all at /metrics.
  app.use(createApp(apiDeps, new ApiMetrics({ registry: operator.metrics.registry })));
  // The console's built files (`npm start` builds them first when stale).
  app.use(consoleAssets(config.consoleDir ?? path.join(repoRoot, 'console/dist')));
  const server = http.createServer(app);
  answerClientErrors(server); // the JSON envelope, not a bare 431/400, for requests Node's parser refuses
  const realtime = attachRealtime(server, apiDeps);
  const terminal = attachTerminal(server, apiDeps);
  const agentSockets = agents.attach(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e) => reject(new Error(`cannot listen on 127.0.0.1:${config.port}`, { cause: e })));
    server.listen(config.port, '127.0.0.1', resolve);
  });
  const port = (server.address() as { port: number }).port;
  if (kubeLite) console.log(`To use kubectl: export KUBECONFIG=${kubeLite.kubeconfigPath}`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    ready = false;
    log.info({ signal }, 'stopping');
    realtime.close();
    terminal.close();
    agentSockets.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await agents.stop();
    await closeServices(apiDeps);
    await builder?.close();
    await operator.stop();
    await runner?.stop();
    await kubeLite?.close();
    if (kubeDb !== db) await kubeDb.destroy();
    await db.destroy();
    log.info('stopped');
    process.exit(0);
  };
  signals.stop = stop;
  if (signals.pending) await stop(signals.pending);
  stage('serving');
  log.info({ url: `http://127.0.0.1:${port}` }, 'sandflow serving');
  console.log(`Sandflow console: http://127.0.0.1:${port}`);
}

/** The bytes of a secrets key from the environment or the data folder, or a ConfigError naming the variable. */
function secretsKeyBytes(variable: string, text: string): Buffer {
  const decoded = decodeSecretsKey(text);
  if ('problem' in decoded) throw new ConfigError(`invalid configuration: ${variable}: ${decoded.problem}`);
  return decoded.key;
}

main().catch((e: unknown) => {
  if (
    e instanceof ConfigError ||
    e instanceof RuntimeUnavailableError ||
    e instanceof UnreadableObjectError ||
    (e instanceof Error && e.message.startsWith('invalid configuration:'))
  )
    console.error(e.message);
  else console.error('sandflow failed to start:', e);
  process.exit(1);
});
