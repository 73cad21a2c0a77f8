// The cluster-mode entrypoints (the chart's and config/'s Deployments run these) as real processes:
// the operator against kube-lite through a kubeconfig, as it would run against a cluster (it takes
// the Lease, registers the platform ClusterManager and releases the Lease on SIGTERM); the API's
// configuration errors name the variable; and, where a PostgreSQL is given
// (SANDFLOW_TEST_DATABASE_URL, as `npm run test:db` in CI), the API serves /readyz against kube-lite.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CoordinationV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installCrds, readCrds } from '../crd-install.js';
import { createDatabase } from '../db/database.js';
import { startKubeLite, type KubeLite } from '../kube-lite/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const entry = (name: 'api' | 'operator') => path.join(root, 'embedded/src/cluster', `${name}.ts`);

interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function start(name: 'api' | 'operator', env: Record<string, string | undefined>): Started {
  const base = { ...process.env };
  // Nothing of the test runner's own configuration leaks into the process under test.
  for (const key of Object.keys(base))
    if (key.startsWith('SANDFLOW_') || key === 'DATABASE_URL' || key === 'KUBECONFIG') delete base[key];
  const child = spawn(process.execPath, ['--import', 'tsx', entry(name)], {
    cwd: root,
    env: { ...base, SANDFLOW_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout!.on('data', (d: Buffer) => (text += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (text += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => text, exited };
}

async function until<T>(
  what: string | (() => string),
  probe: () => Promise<T | undefined>,
  ms = 30_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });

const JWT = 'x'.repeat(40);

describe('cluster-mode API entrypoint: configuration errors', () => {
  it.each([
    {
      case: 'DATABASE_URL missing',
      env: { SANDFLOW_JWT_SECRET: JWT },
      message: /invalid configuration: DATABASE_URL: required: the URL of the external PostgreSQL/,
    },
    {
      case: 'DATABASE_URL not postgres',
      env: { DATABASE_URL: 'mysql://db/sandflow', SANDFLOW_JWT_SECRET: JWT },
      message: /DATABASE_URL: must be a postgres:\/\/ or postgresql:\/\/ URL/,
    },
    {
      case: 'JWT secret too short',
      env: { DATABASE_URL: 'postgres://db/sandflow', SANDFLOW_JWT_SECRET: 'short' },
      message: /SANDFLOW_JWT_SECRET: must be at least 32 characters/,
    },
    {
      case: 'JWT secret missing',
      env: { DATABASE_URL: 'postgres://db/sandflow' },
      message: /SANDFLOW_JWT_SECRET: required: the key that signs sessions/,
    },
    {
      case: 'listen address not an IP address',
      env: { DATABASE_URL: 'postgres://db/sandflow', SANDFLOW_JWT_SECRET: JWT, SANDFLOW_HOST: 'everywhere' },
      message: /SANDFLOW_HOST: must be an IP address to listen on/,
    },
    {
      case: 'builder switch not a boolean',
      env: {
        DATABASE_URL: 'postgres://db/sandflow',
        SANDFLOW_JWT_SECRET: JWT,
        SANDFLOW_BUILDER_ENABLED: 'yes',
      },
      message: /SANDFLOW_BUILDER_ENABLED: must be 'true' or 'false'/,
    },
    {
      case: 'builder helper image not an image reference',
      env: {
        DATABASE_URL: 'postgres://db/sandflow',
        SANDFLOW_JWT_SECRET: JWT,
        SANDFLOW_BUILDER_HELPER_IMAGE: 'Busy Box!',
      },
      message: /SANDFLOW_BUILDER_HELPER_IMAGE: must be an image reference \(e\.g\. busybox:1\.36\.1-musl\)/,
    },
  ])('$case: exits 1 naming the variable', { timeout: 60_000 }, async ({ env, message }) => {
    const p = start('api', env);
    expect(await p.exited).toBe(1);
    expect(p.output()).toMatch(message);
    // One line, not a stack trace.
    expect(p.output()).not.toMatch(/\n\s+at /);
  });
});

describe('cluster-mode entrypoints against kube-lite', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandflow-cluster-'));
  let db: Knex;
  let kubeLite: KubeLite;
  let kc: KubeConfig;

  beforeAll(async () => {
    db = createDatabase({});
    // With its kubelet: kube-lite serves Pods, which the API's sandbox builder watches.
    kubeLite = await startKubeLite({ db, dataDir: dir, kubelet: { dataDir: dir } });
    kc = new KubeConfig();
    kc.loadFromFile(kubeLite.kubeconfigPath!);
    // What the chart installs (crds/) and what Argo's own release installs on a cluster.
    await installCrds(kc, readCrds(path.join(root, 'crds')));
    await installCrds(kc, readCrds(path.join(root, 'embedded/argo-crds')));
  }, 60_000);

  afterAll(async () => {
    await kubeLite?.close();
    await db?.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it(
    'the operator leads through its Lease, reconciles, and releases the Lease on SIGTERM',
    { timeout: 90_000 },
    async () => {
      const leases = kc.makeApiClient(CoordinationV1Api);
      const custom = kc.makeApiClient(CustomObjectsApi);
      const p = start('operator', {
        KUBECONFIG: kubeLite.kubeconfigPath!,
        POD_NAMESPACE: 'default',
        POD_NAME: 'sandflow-operator-test-0',
        SANDFLOW_LEASE_NAME: 'sandflow-operator-test',
        SANDFLOW_PLATFORM_CLUSTER: 'platform-test',
      });
      try {
        const lease = await until('the Lease', async () => {
          const l = await leases.readNamespacedLease({
            name: 'sandflow-operator-test',
            namespace: 'default',
          });
          return l.spec?.holderIdentity === 'sandflow-operator-test-0' ? l : undefined;
        });
        expect(lease.spec?.holderIdentity).toBe('sandflow-operator-test-0');
        // Leading runs the controllers: the platform ClusterManager is registered under the given name.
        const manager = (await until('the platform ClusterManager', () =>
          custom.getClusterCustomObject({
            group: 'sandflow.io',
            version: 'v1alpha1',
            plural: 'clustermanagers',
            name: 'platform-test',
          }),
        )) as { spec: { platformOwned: boolean } };
        expect(manager.spec.platformOwned).toBe(true);
        p.child.kill('SIGTERM');
        expect(await p.exited).toBe(0);
        const released = await leases.readNamespacedLease({
          name: 'sandflow-operator-test',
          namespace: 'default',
        });
        expect(released.spec?.holderIdentity ?? '').toBe('');
      } finally {
        if (p.child.exitCode === null) p.child.kill('SIGKILL');
      }
    },
  );

  // Needs a real PostgreSQL: the API Deployment takes DATABASE_URL only (CI: `npm run test:db`).
  it.runIf(process.env.SANDFLOW_TEST_DATABASE_URL)(
    'the API migrates, serves /readyz once sandboxes, workflows and builder Pods are listed, and stops on SIGTERM',
    { timeout: 120_000 },
    async () => {
      // A database of its own on that server, as createTestDatabase() makes for in-process suites.
      const server = process.env.SANDFLOW_TEST_DATABASE_URL!;
      const name = `sandflow_cluster_${Date.now().toString(36)}`;
      const admin = createDatabase({ url: server });
      await admin.raw(`create database ${name}`).finally(() => admin.destroy());
      const target = new URL(server);
      target.pathname = `/${name}`;
      const url = target.toString();
      const port = await freePort();
      const p = start('api', {
        KUBECONFIG: kubeLite.kubeconfigPath!,
        DATABASE_URL: url,
        SANDFLOW_JWT_SECRET: JWT,
        SANDFLOW_PORT: String(port),
        SANDFLOW_HOST: '127.0.0.1',
        SANDFLOW_PUBLIC_URL: `http://127.0.0.1:${port}`,
        SANDFLOW_DATA_DIR: path.join(dir, 'api'),
        SANDFLOW_ADMIN_EMAIL: 'admin@example.com',
        SANDFLOW_ADMIN_PASSWORD: 'cluster-mode-admin-1',
      });
      try {
        const body = await until(
          '/readyz',
          async () => {
            const res = await fetch(`http://127.0.0.1:${port}/readyz`);
            return res.ok ? ((await res.json()) as { status: string }) : undefined;
          },
          60_000,
        );
        expect(body.status).toBe('ok');
        const health = await fetch(`http://127.0.0.1:${port}/healthz`);
        expect(await health.text()).toBe('ok');
        p.child.kill('SIGTERM');
        expect(await p.exited).toBe(0);
      } finally {
        if (p.child.exitCode === null) p.child.kill('SIGKILL');
      }
    },
  );
});
