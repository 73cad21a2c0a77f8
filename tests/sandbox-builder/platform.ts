// The API with the real embedded builder (bwrap), Debian's busybox-static image in Debian's
// docker-registry as organization Alpha's registry, and a terminal client, for the builder suites.
import fs from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {
  attachTerminal,
  closeServices,
  createApp,
  createMailer,
  defaultApiConfig,
  registryCredentials,
  servicesFor,
  type ApiConfig,
  type ApiDeps,
} from '@sandflow/api';
import { createTestDatabase, createWorld } from '@sandflow/api/testing';
import {
  BwrapBuilder,
  createTestDatabase as createKubeDatabase,
  installCrds,
  openTerminalSocket,
  readCrds,
  reapBuilders,
  startKubeLite,
  type TerminalSocket,
} from '@sandflow/embedded/testing';
import { CRD_DIR } from '@sandflow/crds';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import {
  BUSYBOX_REFERENCE,
  LayoutStore,
  RegistryStore,
  buildBusyboxImage,
  copyImage,
  findBusyboxStatic,
} from '@sandflow/images';
import { registryMissing, startRegistry, type TestRegistry } from '@sandflow/images/testing';
import pino from 'pino';
import supertest from 'supertest';
import { WebSocket } from 'ws';

/** Why these suites cannot run here, or undefined. */
export function builderMissing(): string | undefined {
  const missing = [
    !['/usr/bin/bwrap', '/bin/bwrap'].some((p) => fs.existsSync(p)) && 'bwrap (apt-get install bubblewrap)',
    !findBusyboxStatic() && 'busybox-static',
    registryMissing(),
  ].filter(Boolean);
  return missing.length ? missing.join(' and ') : undefined;
}

/** Where Alpha's registry holds the busybox image, as the sandbox page names it. */
export const SOURCE = { source_image: 'team/busybox', source_version: '1.36' };

export interface Platform {
  base: string;
  request: ReturnType<typeof supertest>;
  deps: ApiDeps;
  registry: TestRegistry;
  builder: BwrapBuilder;
  dataDir: string;
  world: Awaited<ReturnType<typeof createWorld>>;
  token(userId: string, organizationId: string): Promise<string>;
  stop(): Promise<void>;
}

/** kube-lite with the Sandflow CRDs, the store of sandboxes. */
async function startKube() {
  const db = await createKubeDatabase();
  const kubeLite = await startKubeLite({ db, port: 0, host: '127.0.0.1' });
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [
      { name: 'kube-lite', server: kubeLite.url, caData: Buffer.from(kubeLite.caCert).toString('base64') },
    ],
    users: [{ name: 'sandflow', token: kubeLite.token }],
    contexts: [{ name: 'kube-lite', cluster: 'kube-lite', user: 'sandflow' }],
    currentContext: 'kube-lite',
  });
  await installCrds(kubeConfig, readCrds(CRD_DIR));
  return {
    kubeConfig,
    async stop() {
      await kubeLite.close();
      await db.destroy();
    },
  };
}

export async function startPlatform(
  config: Partial<ApiConfig> = {},
  options: { kube?: boolean } = {},
): Promise<Platform> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sandbox-builder-'));
  const dataDir = path.join(tmp, 'data');
  const registry = await startRegistry();
  const built = await buildBusyboxImage(path.join(tmp, 'busybox'));
  const [repository, tag] = BUSYBOX_REFERENCE.split(':') as [string, string];
  await copyImage({
    from: new LayoutStore(built.oci),
    fromRepository: repository,
    reference: tag,
    to: new RegistryStore({ host: registry.host }),
    toRepository: SOURCE.source_image,
    tag: SOURCE.source_version,
  });

  const kube = options.kube ? await startKube() : undefined;
  const db = await createTestDatabase();
  const world = await createWorld(db);
  await db('organizations')
    .where({ id: world.a.org.id })
    .update({ registry: JSON.stringify({ use_custom: true, url: `http://${registry.host}` }) });
  // The organizations' namespaces, as tenancy makes them when an organization is created.
  for (const org of kube ? [world.a.org, world.b.org] : [])
    await kube!.kubeConfig
      .makeApiClient(CoreV1Api)
      .createNamespace({ body: { metadata: { name: `sf-${org.slug}` } } });
  const apiConfig = defaultApiConfig({
    rateLimit: { windowMs: 60_000, perAccount: 1000, perAddress: 1000 },
    ...config,
  });
  await reapBuilders(dataDir);
  const layout = new LayoutStore(path.join(dataDir, 'images'));
  // The builder pulls and pushes with the organization's registry credentials, read lazily.
  const builder = new BwrapBuilder({
    dataDir,
    layout,
    credentials: (organization) => registryCredentials(deps, organization),
  });
  const deps: ApiDeps = {
    db,
    kube: kube?.kubeConfig ?? null,
    logger: pino({ level: process.env.DBG ? 'debug' : 'silent' }),
    mailer: createMailer({ db, from: apiConfig.mailFrom }),
    config: apiConfig,
    checkAnswers: true,
    builder,
    images: { layout },
  };
  const app = createApp(deps);
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const terminal = attachTerminal(server, deps);
  const services = servicesFor(deps);
  return {
    base: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    request: supertest(app),
    deps,
    registry,
    builder,
    dataDir,
    world,
    token: (userId, organizationId) => services.tokens.signAccessToken({ userId, organizationId }),
    async stop() {
      terminal.close();
      await new Promise((resolve) => server.close(resolve));
      await builder.close();
      await closeServices(deps);
      await db.destroy();
      await registry.stop();
      await kube?.stop();
      fs.rmSync(tmp, { recursive: true, force: true });
    },
  };
}

export type Terminal = TerminalSocket;

/** The page's side of the terminal socket (xterm's attach protocol: raw text both ways). */
export const openTerminal = (base: string, container: string, token: string): Promise<Terminal> =>
  openTerminalSocket(base, container, token);

/** The status of a refused terminal upgrade. */
export async function terminalRefusal(base: string, container: string, token: string): Promise<number> {
  const socket = new WebSocket(`ws://${base}/log/${container}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  try {
    return await new Promise<number>((resolve, reject) => {
      socket.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      socket.on('open', () => reject(new Error('the terminal opened')));
      socket.on('error', () => undefined);
    });
  } finally {
    socket.terminate();
  }
}
