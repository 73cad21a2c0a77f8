// What the kubelet's tests share: Debian's busybox-static image pushed to Debian's docker-registry
// (as sandflow/busybox:latest, or the name a test's API expects), and kube-lite with its kubelet over
// a PGlite database in a temporary folder (restartable on the same folder), its kubeconfig loaded
// for @kubernetes/client-node. The kubelet's tests and the cluster-mode builder's use it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CoreV1Api, KubeConfig, type V1Pod } from '@kubernetes/client-node';
import {
  BUSYBOX_REFERENCE,
  LayoutStore,
  RegistryStore,
  buildBusyboxImage,
  copyImage,
  findBusyboxStatic,
  type Credentials,
} from '@sandflow/images';
import { registryMissing, startRegistry, type TestRegistry } from '@sandflow/images/testing';
import { findBwrap } from '../../bwrap/sandbox.js';
import { createDatabase } from '../../db/database.js';
import { startKubeLite, type KubeLite } from '../index.js';

/** What is missing on this machine for the kubelet's tests (they are skipped, saying so). */
export const kubeletMissing = [
  !findBwrap() && 'bwrap (apt-get install bubblewrap)',
  !findBusyboxStatic() && 'busybox-static',
  registryMissing(),
].filter(Boolean) as string[];

export interface Node {
  kubeLite: KubeLite;
  kc: KubeConfig;
  core: CoreV1Api;
  stop(): Promise<void>;
}

export interface Fixture {
  tmp: string;
  dataDir: string;
  /** The busybox image in `registry`. */
  image: string;
  registry: TestRegistry;
  /**
   * Pushes the busybox image to a registry, under the fixture's name or `reference`
   * (`repository:tag`); answers its reference there.
   */
  pushTo(host: string, credentials?: Credentials, reference?: string): Promise<string>;
  /** Starts kube-lite with its kubelet on the fixture's data folder and database. */
  boot(): Promise<Node>;
  cleanup(): Promise<void>;
}

/** `prefix` names the temporary folder; `reference` (`repository:tag`) the image in the registries. */
export async function setUp(prefix: string, options: { reference?: string } = {}): Promise<Fixture> {
  const reference = options.reference ?? BUSYBOX_REFERENCE;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const dataDir = path.join(tmp, 'data');
  const registry = await startRegistry();
  const built = await buildBusyboxImage(path.join(tmp, 'hack-images'));
  const [builtRepository, builtTag] = BUSYBOX_REFERENCE.split(':') as [string, string];
  const pushTo: Fixture['pushTo'] = async (host, credentials, as = reference) => {
    const [repository, tag] = as.split(':');
    if (!repository || !tag) throw new Error(`setUp: ${as} is not repository:tag`);
    await copyImage({
      from: new LayoutStore(built.oci),
      fromRepository: builtRepository,
      reference: builtTag,
      to: new RegistryStore({ host, ...(credentials ? { credentials } : {}) }),
      toRepository: repository,
      tag,
    });
    return `${host}/${as}`;
  };
  const image = await pushTo(registry.host);
  return {
    tmp,
    dataDir,
    image,
    registry,
    pushTo,
    async boot() {
      const db = createDatabase({ pgliteDir: path.join(tmp, 'pglite') });
      const kubeLite = await startKubeLite({ db, dataDir, kubelet: { dataDir } });
      const kc = new KubeConfig();
      kc.loadFromFile(kubeLite.kubeconfigPath!);
      return {
        kubeLite,
        kc,
        core: kc.makeApiClient(CoreV1Api),
        stop: async () => {
          await kubeLite.close();
          await db.destroy();
        },
      };
    },
    async cleanup() {
      await registry.stop();
      fs.rmSync(tmp, { recursive: true, force: true });
    },
  };
}

/** Polls `read` until `done` holds (bounded); answers the last value read. */
export async function until<T>(
  read: () => Promise<T>,
  done: (v: T) => boolean,
  what: string,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await read();
    if (done(last)) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}; last seen: ${JSON.stringify(last, null, 2)}`);
}

/** Waits until the Pod reaches one of `phases`. */
export const untilPhase = (
  core: CoreV1Api,
  namespace: string,
  name: string,
  phases: string[],
  timeoutMs?: number,
) =>
  until<V1Pod>(
    () => core.readNamespacedPod({ name, namespace }),
    (p) => phases.includes(p.status?.phase ?? ''),
    `pod ${namespace}/${name} to be ${phases.join(' or ')}`,
    timeoutMs,
  );

/** Host processes whose command line contains `marker`. */
export function processesWith(marker: string): number[] {
  const out: number[] = [];
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker)) out.push(Number(pid));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}
