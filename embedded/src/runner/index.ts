// The local runner: Argo's stand-in in embedded mode. It executes the Argo Workflows (and schedules
// the CronWorkflows) the operator creates, with the process runtime, and writes their status as
// Argo's controller does. See README.md in this folder.
import path from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import {
  LayoutStore,
  localRootfsProvider,
  storeRootfsProvider,
  type CredentialsByHost,
} from '@sandflow/images';
import pino, { type Logger } from 'pino';
import { BwrapRuntime } from './bwrap.js';
import { CronController } from './cron.js';
import { WorkflowController } from './controller.js';
import { ProcessRuntime, type Capacity, type Runtime } from './runtime.js';

export * from './argo.js';
export { operate } from './engine.js';
export { ProcessRuntime, machineCapacity, remapShared, detectContainerEngine } from './runtime.js';
export type { Capacity, Runtime, StepHandle, StepSpec } from './runtime.js';
export { BwrapRuntime, findBwrap, type BwrapRuntimeOptions } from './bwrap.js';
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
  /** Which runtime to build when `runtime` is not given (process by default). */
  runtimeKind?: 'process' | 'bwrap';
  /**
   * Unpacked images for the bwrap runtime (`<dir>/<reference>/<arch>/{rootfs,config.json}`); without
   * it the bwrap runtime pulls images into the layout at `<dataDir>/images` and unpacks them there.
   */
  imagesDir?: string;
  /** Registry credentials by host for those pulls. */
  registryCredentials?: CredentialsByHost;
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
  const runtime = options.runtime ?? buildRuntime(options);
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

function buildRuntime(options: RunnerOptions): Runtime {
  const base = {
    root: path.join(options.dataDir, 'runs'),
    ...(options.capacity ? { capacity: options.capacity } : {}),
    ...(options.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: options.gracePeriodSeconds } : {}),
  };
  if (options.runtimeKind === 'bwrap') {
    const rootfs = options.imagesDir
      ? localRootfsProvider(options.imagesDir)
      : storeRootfsProvider({
          layout: new LayoutStore(path.join(options.dataDir, 'images')),
          cacheDir: path.join(options.dataDir, 'image-roots'),
          ...(options.registryCredentials ? { credentials: options.registryCredentials } : {}),
        });
    return new BwrapRuntime({ ...base, rootfs });
  }
  return new ProcessRuntime(base);
}
