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
  type RootfsProvider,
} from '@sandflow/images';
import pino, { type Logger } from 'pino';
import { BwrapRuntime, type StepRootfsProvider } from './bwrap.js';
import { mountPolicies } from './mount-policy.js';
import { registryCredentials } from './registry-credentials.js';
import { CronController } from './cron.js';
import { WorkflowController } from './controller.js';
import { ProcessRuntime, type Capacity, type Runtime } from './runtime.js';
import { startArgoServer, type ArgoServerHandle } from './argo-server.js';
import type { ArgoWorkflow } from './argo.js';

export * from './argo.js';
export { operate } from './engine.js';
export { ProcessRuntime, machineCapacity, remapShared, detectContainerEngine } from './runtime.js';
export type { Capacity, Runtime, StepHandle, StepSpec } from './runtime.js';
export { BwrapRuntime, findBwrap, type BwrapRuntimeOptions, type StepRootfsProvider } from './bwrap.js';
export * from './select-runtime.js';
export { overlaySupported } from './overlay.js';
export { registryCredentials, type CredentialsForNamespace } from './registry-credentials.js';
export {
  mountPolicies,
  mountRefusal,
  platformPathRefusal,
  parseMountPolicy,
  MOUNT_POINTS_ANNOTATION,
  type MountPolicy,
  type MountPolicyFor,
} from './mount-policy.js';
export { splitNative } from './split.js';
export { CronController } from './cron.js';
export { argoServerHandler, startArgoServer, MAX_TAIL_LINES, type ArgoServerHandle } from './argo-server.js';
export { evalDepends, evalWhen, dependsTasks } from './expr.js';

export interface RunnerOptions {
  kc: KubeConfig;
  /** $SANDFLOW_DATA_DIR: runs live in <dataDir>/runs/<namespace>/<workflow>/. */
  dataDir: string;
  logger?: Logger;
  /** Defaults to the machine (cpus × 1000 m, total memory). */
  capacity?: Capacity;
  runtime?: Runtime;
  /** Which runtime to build when `runtime` is not given (process by default; main.ts chooses). */
  runtimeKind?: 'process' | 'bwrap';
  /** The bwrap binary (found on PATH when absent). */
  bwrap?: string;
  /**
   * Unpacked images for the bwrap runtime (`<dir>/<reference>/<arch>/{rootfs,config.json}`); without
   * it the bwrap runtime pulls images into the layout at `<dataDir>/images` and unpacks them there.
   */
  imagesDir?: string;
  /**
   * Registry credentials by host for those pulls; without them, each run's are read from the
   * dockerconfigjson Secrets of its namespace, its organization's and `registrySecret`.
   */
  registryCredentials?: CredentialsByHost;
  /** The platform default registry's dockerconfigjson Secret. */
  registrySecret?: { namespace: string; name: string };
  /** Workflows reconciled in parallel. */
  concurrency?: number;
  /** Seconds between SIGTERM and SIGKILL when stopping a step. */
  gracePeriodSeconds?: number;
  /**
   * The argo-server subset (logs, artifacts) on 127.0.0.1: a free port and a fresh token unless
   * given; false: none.
   */
  argoServer?: { port?: number; token?: string } | false;
  /**
   * Which Argo Workflows to execute (all when absent). The platform's runner takes only those
   * placed on the platform-owned cluster manager; agents' ones are theirs (see the agent).
   */
  accepts?: (wf: ArgoWorkflow) => boolean;
}

export interface Runner {
  runtime: Runtime;
  /** Where the API reads logs and output files (argo-server's routes); the ApiDeps `argo` field. */
  argoServer?: ArgoServerHandle;
  /** Stops watching. kill=false leaves running steps behind, as a crashed runner would. */
  stop(opts?: { kill?: boolean }): Promise<void>;
}

export async function startRunner(options: RunnerOptions): Promise<Runner> {
  const log = (options.logger ?? pino({ level: 'silent' })).child({ component: 'runner' });
  const runtime = options.runtime ?? buildRuntime(options);
  const workflows = new WorkflowController(
    options.kc,
    runtime,
    log,
    options.concurrency ?? 8,
    options.accepts,
  );
  const crons = new CronController(options.kc, log);
  await workflows.start();
  await crons.start();
  const argoServer =
    options.argoServer === false
      ? undefined
      : await startArgoServer({ kc: options.kc, runtime, logger: log, ...options.argoServer });
  log.info(
    { runtime: runtime.name, capacity: runtime.capacity, argoServer: argoServer?.url },
    'local runner started',
  );
  return {
    runtime,
    ...(argoServer ? { argoServer } : {}),
    async stop(opts = {}) {
      await argoServer?.close();
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
    const rootfs = options.imagesDir ? localRootfsProvider(options.imagesDir) : storeRootfs(options);
    return new BwrapRuntime({
      ...base,
      rootfs,
      mountPolicy: mountPolicies(options.kc),
      platformPaths: [options.dataDir],
      ...(options.bwrap ? { bwrap: options.bwrap } : {}),
    });
  }
  return new ProcessRuntime(base);
}

/** Pulls into `<dataDir>/images` with the credentials of the step's run; one provider per credential set. */
function storeRootfs(options: RunnerOptions): StepRootfsProvider {
  const layout = new LayoutStore(path.join(options.dataDir, 'images'));
  const cacheDir = path.join(options.dataDir, 'image-roots');
  if (options.registryCredentials)
    return storeRootfsProvider({ layout, cacheDir, credentials: options.registryCredentials });
  const credentialsOf = registryCredentials({
    kc: options.kc,
    ...(options.registrySecret ? { platformSecret: options.registrySecret } : {}),
  });
  const providers = new Map<string, RootfsProvider>();
  return async (image, architecture, step) => {
    const credentials = await credentialsOf(step.namespace);
    const key = JSON.stringify([...credentials].sort(([a], [b]) => a.localeCompare(b)));
    let provider = providers.get(key);
    if (!provider) {
      provider = storeRootfsProvider({ layout, cacheDir, credentials });
      providers.set(key, provider);
    }
    return provider(image, architecture);
  };
}
