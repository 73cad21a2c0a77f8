// The local runner: Argo's stand-in in embedded mode. It executes the Argo Workflows (and schedules
// the CronWorkflows) the operator creates, with the process runtime, and writes their status as
// Argo's controller does. See README.md in this folder.
import path from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import pino, { type Logger } from 'pino';
import { CronController } from './cron.js';
import { WorkflowController } from './controller.js';
import { ProcessRuntime, type Capacity, type Runtime } from './runtime.js';

export * from './argo.js';
export { operate } from './engine.js';
export { ProcessRuntime, machineCapacity, remapShared, detectContainerEngine } from './runtime.js';
export type { Capacity, Runtime, StepHandle, StepSpec } from './runtime.js';
export { splitNative } from './split.js';
export { evalDepends, evalWhen, dependsTasks } from './expr.js';

export interface RunnerOptions {
  kc: KubeConfig;
  /** $SANDFLOW_DATA_DIR: runs live in <dataDir>/runs/<namespace>/<workflow>/. */
  dataDir: string;
  logger?: Logger;
  /** Defaults to the machine (cpus × 1000 m, total memory). */
  capacity?: Capacity;
  runtime?: Runtime;
  /** Workflows reconciled in parallel. */
  concurrency?: number;
  /** Seconds between SIGTERM and SIGKILL when stopping a step. */
  gracePeriodSeconds?: number;
}

export interface Runner {
  runtime: Runtime;
  /** Stops watching. kill=false leaves running steps behind, as a crashed runner would. */
  stop(opts?: { kill?: boolean }): Promise<void>;
}

export async function startRunner(options: RunnerOptions): Promise<Runner> {
  const log = (options.logger ?? pino({ level: 'silent' })).child({ component: 'runner' });
  const runtime =
    options.runtime ??
    new ProcessRuntime({
      root: path.join(options.dataDir, 'runs'),
      ...(options.capacity ? { capacity: options.capacity } : {}),
      ...(options.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: options.gracePeriodSeconds } : {}),
    });
  const workflows = new WorkflowController(options.kc, runtime, log, options.concurrency ?? 8);
  const crons = new CronController(options.kc, log);
  await workflows.start();
  await crons.start();
  log.info({ runtime: runtime.name, capacity: runtime.capacity }, 'local runner started');
  return {
    runtime,
    async stop(opts = {}) {
      await crons.stop();
      await workflows.stop();
      if (opts.kill !== false) await runtime.close();
    },
  };
}
