// `sandflow agent --api URL --token T [--data DIR]`: a cluster manager's agent. It runs the platform's
// Argo Workflows assigned to its cluster manager in its own cluster (SANDFLOW_KUBECONFIG, or an
// embedded kube-lite + local runner in its data folder) and reports back over one outgoing socket.
// --cpu/--memory/--disk offer less (or other) than the machine measured; --metrics-port serves
// Prometheus metrics on 127.0.0.1.
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { ConfigError, loadConfig } from '../config.js';
import { machineResources } from '../machine.js';
import { startAgentCluster } from './cluster.js';
import { Agent } from './connection.js';
import { AgentMetrics, serveMetrics } from './metrics.js';

export const USAGE =
  'usage: sandflow agent --api URL --token TOKEN [--data DIR] [--cpu MILLICORES] [--memory MB] [--disk MB] [--metrics-port PORT]';
const ARCHITECTURES: Record<string, string> = {
  x64: 'amd64',
  arm64: 'arm64',
  arm: 'arm',
  ppc64: 'ppc64le',
  s390x: 's390x',
  riscv64: 'riscv64',
};

/** A positive whole number given for `flag`, or undefined when not given. */
function count(flag: string, value: string | undefined, min = 1): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < min)
    throw new ConfigError(`--${flag} must be a whole number ≥ ${min}\n${USAGE}`);
  return n;
}

/** What the agent offers: what the machine measured, with each of --cpu/--memory/--disk taking its place. */
export function offered(
  measured: { cpu: number; memory: number; disk: number },
  flags: { cpu?: string; memory?: string; disk?: string },
) {
  return {
    cpu: count('cpu', flags.cpu) ?? measured.cpu,
    memory: count('memory', flags.memory) ?? measured.memory,
    disk: count('disk', flags.disk) ?? measured.disk,
  };
}

export async function agentMain(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      api: { type: 'string' },
      token: { type: 'string' },
      data: { type: 'string' },
      cpu: { type: 'string' },
      memory: { type: 'string' },
      disk: { type: 'string' },
      'metrics-port': { type: 'string' },
    },
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
  const metricsPort = count('metrics-port', values['metrics-port'], 0);
  const log = pino({ name: 'sandflow-agent', level: config.logLevel });
  const resources = () => offered(machineResources(config.dataDir), values);
  const first = resources(); // a wrong flag stops here, before anything starts
  const cluster = await startAgentCluster(config, log, { cpu: first.cpu, memory: first.memory });
  const metrics = metricsPort === undefined ? undefined : new AgentMetrics();
  const served = metrics ? await serveMetrics(metrics, metricsPort!) : undefined;
  if (served) log.info({ url: served.url }, 'agent metrics');
  const agent = new Agent({
    api,
    token,
    kc: cluster.kc,
    argoServer: cluster.argoServer,
    logger: log,
    version: '0.1.0',
    label: os.hostname(),
    resources: () => ({ ...resources(), architecture: ARCHITECTURES[process.arch] ?? process.arch }),
    onUnauthorized: (message) => {
      console.error(`the platform refused the token: ${message}`);
      void stop(1);
    },
    onResumed: async () => {
      await cluster.startRunner();
    },
    ...(metrics ? { metrics } : {}),
  });
  let stopping = false;
  const stop = async (code = 0) => {
    if (stopping) return;
    stopping = true;
    await agent.stop();
    await served?.close();
    await cluster.close();
    log.info('agent stopped');
    process.exit(code);
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void stop());
  await agent.start();
  log.info({ api, dataDir: config.dataDir }, 'agent started');
}
