// `sandflow agent --api URL --token T [--data DIR]`: a cluster manager's agent. It runs the platform's
// Argo Workflows assigned to its cluster manager in its own cluster (SANDFLOW_KUBECONFIG, or an
// embedded kube-lite + local runner in its data folder) and reports back over one outgoing socket.
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { ConfigError, loadConfig } from '../config.js';
import { machineResources } from '../machine.js';
import { startAgentCluster } from './cluster.js';
import { Agent } from './connection.js';

const USAGE = 'usage: sandflow agent --api URL --token TOKEN [--data DIR]';
const ARCHITECTURES: Record<string, string> = {
  x64: 'amd64',
  arm64: 'arm64',
  arm: 'arm',
  ppc64: 'ppc64le',
  s390x: 's390x',
  riscv64: 'riscv64',
};

export async function agentMain(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { api: { type: 'string' }, token: { type: 'string' }, data: { type: 'string' } },
  });
  const api = values.api ?? process.env.SANDFLOW_API;
  const token = values.token ?? process.env.SANDFLOW_AGENT_TOKEN;
  if (!api || !/^https?:\/\//.test(api)) throw new ConfigError(`--api must be an http(s) URL\n${USAGE}`);
  if (!token) throw new ConfigError(`--token is required\n${USAGE}`);
  const config = loadConfig({
    SANDFLOW_KUBE_PORT: '0',
    ...process.env,
    SANDFLOW_DATA_DIR:
      values.data ?? process.env.SANDFLOW_DATA_DIR ?? path.join(os.homedir(), '.sandflow-agent'),
  });
  const log = pino({ name: 'sandflow-agent', level: config.logLevel });
  const cluster = await startAgentCluster(config, log);
  const agent = new Agent({
    api,
    token,
    kc: cluster.kc,
    argoServer: cluster.argoServer,
    logger: log,
    version: '0.1.0',
    label: os.hostname(),
    resources: () => ({
      ...machineResources(config.dataDir),
      architecture: ARCHITECTURES[process.arch] ?? process.arch,
    }),
    onUnauthorized: (message) => {
      console.error(`the platform refused the token: ${message}`);
      void stop(1);
    },
  });
  let stopping = false;
  const stop = async (code = 0) => {
    if (stopping) return;
    stopping = true;
    await agent.stop();
    await cluster.close();
    log.info('agent stopped');
    process.exit(code);
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void stop());
  await agent.start();
  log.info({ api, dataDir: config.dataDir }, 'agent started');
}
