// The API in-process over a test database, on the kube-lite, operator and local runner of an
// embedded test environment (startEnv): the fixture the tests/runs suites share.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import {
  attachTerminal,
  closeServices,
  createApp,
  createMailer,
  defaultApiConfig,
  servicesFor,
  type ApiDeps,
} from '@sandflow/api';
import { createTestDatabase, createWorld, destroyTestDatabase } from '@sandflow/api/testing';
import type { Env } from '@sandflow/embedded/testing';

export type World = Awaited<ReturnType<typeof createWorld>>;

/**
 * A test database with the two-organization world in it, and the API's dependencies on `env`'s
 * cluster; `argo: true` reads run logs, files and variables from the local runner's argo-server.
 */
export async function apiDepsOn(env: Env, options: { argo?: boolean } = {}) {
  const db = await createTestDatabase();
  const world = await createWorld(db);
  const config = defaultApiConfig();
  const deps: ApiDeps = {
    db,
    kube: env.kc,
    logger: pino({ level: 'silent' }),
    mailer: createMailer({ db, from: config.mailFrom }),
    config,
    ...(options.argo ? { argo: env.runner.argoServer! } : {}),
  };
  return { deps, world };
}

/**
 * Serves the API on 127.0.0.1 (with the terminal's and run logs' sockets when `sockets`) and waits
 * until its informer caches are synced.
 */
export async function serveApi(
  deps: ApiDeps,
  options: { sockets?: boolean } = {},
): Promise<{ server: Server; base: string }> {
  const server = createServer(createApp(deps));
  if (options.sockets) attachTerminal(server, deps);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await servicesFor(deps).resources!.synced;
  return { server, base };
}

/** Undoes serveApi, apiDepsOn and startEnv, whichever of them got done. */
export async function closeApiOn(
  server: Server | undefined,
  deps: ApiDeps | undefined,
  env: Env | undefined,
): Promise<void> {
  // Open log sockets and keep-alive connections would hold close() up.
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  if (deps) {
    await closeServices(deps);
    await destroyTestDatabase(deps.db);
  }
  await env?.close();
}
