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
import { startKubeLite, type KubeLite } from './kube-lite/index.js';
import { startRunner, type Runner } from './runner/index.js';
import { startOperator } from '@sandflow/operator';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The all-in-one process: kube-lite, the database and the one HTTP port of API and console. */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = pino({ name: 'sandflow', level: config.logLevel });
  fs.mkdirSync(config.dataDir, { recursive: true });
  const db = createDatabase({ url: config.databaseUrl, pgliteDir: path.join(config.dataDir, 'pglite') });
  await db.raw('select 1');

  let kubeLite: KubeLite | undefined;
  const kc = new KubeConfig();
  if (config.kubeconfig) {
    kc.loadFromFile(config.kubeconfig);
    log.info(
      { kubeconfig: config.kubeconfig, server: kc.getCurrentCluster()?.server },
      'using an existing cluster',
    );
  } else {
    kubeLite = await startKubeLite({ db, port: config.kubePort, dataDir: config.dataDir, logger: log });
    kc.loadFromFile(kubeLite.kubeconfigPath!);
  }
  const crds = await installCrds(kc, readCrds(path.join(repoRoot, 'crds')));
  log.info({ crds }, 'custom resource definitions installed');
  // Embedded mode only: the local runner plays Argo, so Argo's Workflow and CronWorkflow kinds come from us.
  if (kubeLite) {
    const argo = await installCrds(kc, readCrds(path.join(repoRoot, 'embedded/argo-crds')));
    log.info({ crds: argo }, 'argo custom resource definitions installed (embedded mode)');
  }
  // The local runner plays Argo in embedded mode; the operator runs in both modes.
  const runner: Runner | undefined = kubeLite
    ? await startRunner({ kc, dataDir: config.dataDir, logger: log })
    : undefined;
  const operator = await startOperator({ kc, logger: log });

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
      res.type('text/plain').send('ok');
    } catch (e) {
      res
        .status(503)
        .type('text/plain')
        .send(`not ready: ${(e as Error).message}`);
    }
  });
  // The console's built assets; until the console issue lands, a page saying so.
  app.use(express.static(path.join(repoRoot, 'console/public'), { index: 'index.html' }));
  const server = http.createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e) => reject(new Error(`cannot listen on 127.0.0.1:${config.port}`, { cause: e })));
    server.listen(config.port, '127.0.0.1', resolve);
  });
  const port = (server.address() as { port: number }).port;
  log.info({ url: `http://127.0.0.1:${port}` }, 'sandflow serving');
  if (kubeLite) console.log(`To use kubectl: export KUBECONFIG=${kubeLite.kubeconfigPath}`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    ready = false;
    log.info({ signal }, 'stopping');
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await operator.stop();
    await runner?.stop();
    await kubeLite?.close();
    await db.destroy();
    log.info('stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((e: unknown) => {
  if (e instanceof ConfigError) console.error(e.message);
  else console.error('sandflow failed to start:', e);
  process.exit(1);
});
