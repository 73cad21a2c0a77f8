// The daemonless Sandflow image end to end (issue 18 "The image"): Debian trixie with Node 20.19
// (hack/images/debian-node.ts, mmdebstrap) pushed to a local docker-registry as the base,
// `npx tsx hack/image/build.ts --from … --to …` run as a user would (console built, `npm ci
// --omit=dev`, the app appended as one layer, pushed to the same registry), then the pushed image
// started as a Pod on kube-lite's kubelet (bwrap over the pulled image, user 1000) with the chart's
// API command and environment: a temporary PostgreSQL from Debian's packages for DATABASE_URL and
// kube-lite's kubeconfig bound in from the host. It must answer /readyz, log the super admin in
// over /api/v0 and serve the console. Skipped, saying why, only where mmdebstrap, Debian's mirror,
// docker-registry, bwrap or PostgreSQL is missing.
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Writable } from 'node:stream';
import { CoreV1Api, Exec, KubeConfig, type V1Pod, type V1Status } from '@kubernetes/client-node';
import { LayoutStore, RegistryStore, copyImage, parseManifest, type ImageManifest } from '@sandflow/images';
import { registryMissing, startRegistry, type TestRegistry } from '@sandflow/images/testing';
import { findBwrap } from '@sandflow/embedded/runner';
import {
  ROOT,
  createDatabase,
  installCrds,
  readCrds,
  startKubeLite,
  type KubeLite,
} from '@sandflow/embedded/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES_BIN, POSTGRES_ROOT, asPostgres } from '../support/postgres.js';

const sh = promisify(execFile);

const pgBin = POSTGRES_BIN;

/** Why hack/images/debian-node.ts cannot build its base here, or nothing. */
async function debianMissing(): Promise<string | undefined> {
  if (spawnSync('mmdebstrap', ['--version'], { stdio: 'ignore' }).status !== 0)
    return 'mmdebstrap (apt-get install mmdebstrap)';
  const release = 'http://deb.debian.org/debian/dists/trixie/Release';
  const reached = await fetch(release, { method: 'HEAD', signal: AbortSignal.timeout(10_000) }).then(
    (r) => r.ok,
    () => false,
  );
  return reached ? undefined : `Debian's mirror out of reach (${release})`;
}

const missing = [
  await debianMissing(),
  registryMissing(),
  !findBwrap() && 'bwrap (apt-get install bubblewrap)',
  !pgBin && `PostgreSQL (no ${POSTGRES_ROOT}/*/bin/pg_ctl: apt-get install postgresql)`,
].filter(Boolean) as string[];
if (missing.length > 0) console.warn(`image e2e skipped: ${missing.join('; ')}`);

const ADMIN = { email: 'image-e2e@example.com', password: 'Image-E2e-Passw0rd!' };
const JWT_SECRET = 'image-e2e-jwt-secret-at-least-32-characters';
const ns = 'default';
const POD = 'sandflow-api';

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });

async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, what: string, ms: number) {
  const deadline = Date.now() + ms;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await read();
    if (done(last)) return last;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`timed out waiting for ${what}; last seen: ${JSON.stringify(last)}`);
}

interface Built {
  reference: string;
  digest: string;
  bytes: number;
  seconds: number;
}

describe.skipIf(missing.length > 0)('the daemonless image, built and started', () => {
  let tmp = '';
  let pgData = '';
  const asRoot = process.getuid?.() === 0;
  let pgStarted = false;
  let registry: TestRegistry;
  let kubeLite: KubeLite | undefined;
  let kubeDb: ReturnType<typeof createDatabase> | undefined;
  let core: CoreV1Api;
  let kc: KubeConfig;
  let built: Built;
  let baseLayer: string;
  let url = '';

  const podLog = () =>
    core.readNamespacedPodLog({ name: POD, namespace: ns, container: 'api' }).catch((e: Error) => e.message);

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sandflow-image-e2e-'));
    // Its own folder, not under `tmp` (mode 0700, root's): the postgres user must reach it.
    pgData = fs.mkdtempSync(path.join(os.tmpdir(), 'sandflow-image-e2e-pg-'));
    // The base: Debian trixie + Node (cached under .cache/images after the first build).
    const made = await sh(process.execPath, ['--import', 'tsx', 'hack/images/debian-node.ts'], {
      cwd: ROOT,
      timeout: 900_000,
    });
    const base = JSON.parse(made.stdout.trim().split('\n').at(-1)!) as {
      reference: string;
      oci: string;
      layerDigest: string;
    };
    baseLayer = base.layerDigest;
    registry = await startRegistry();
    const store = new RegistryStore({ host: registry.host });
    const [repository, tag] = base.reference.split(':') as [string, string];
    await copyImage({
      from: new LayoutStore(base.oci),
      fromRepository: repository,
      reference: tag,
      to: store,
      toRepository: repository,
      tag,
    });

    // The build, as its command line runs it (the stage cache under .cache/image-stage).
    const { stdout } = await sh(
      'npx',
      [
        'tsx',
        'hack/image/build.ts',
        '--from',
        `${registry.host}/${base.reference}`,
        '--to',
        `${registry.host}/sandflow/sandflow:e2e`,
      ],
      { cwd: ROOT, timeout: 900_000, maxBuffer: 64 * 1024 * 1024 },
    );
    const lines = stdout.trim().split('\n');
    built = JSON.parse(lines.at(-1)!) as Built;
    console.log(lines.slice(0, -1).join('\n'));

    // PostgreSQL for DATABASE_URL: a throwaway cluster on 127.0.0.1.
    if (asRoot) execFileSync('chown', ['postgres', pgData]);
    const pgPort = await freePort();
    await asPostgres([`${pgBin}/initdb`, '-D', pgData, '-U', 'postgres', '-A', 'trust', '--no-sync']);
    await asPostgres([
      `${pgBin}/pg_ctl`,
      '-D',
      pgData,
      '-o',
      `-p ${pgPort} -k ${pgData} -c listen_addresses=127.0.0.1 -c fsync=off`,
      '-l',
      `${pgData}/log`,
      '-w',
      'start',
    ]);
    pgStarted = true;

    // kube-lite on 127.0.0.1 with its kubelet, the CRDs installed; its kubeconfig is bound into the Pod.
    const dataDir = path.join(tmp, 'kube');
    kubeDb = createDatabase({ pgliteDir: path.join(tmp, 'pglite') });
    kubeLite = await startKubeLite({ db: kubeDb, dataDir, kubelet: { dataDir } });
    kc = new KubeConfig();
    kc.loadFromFile(kubeLite.kubeconfigPath!);
    await installCrds(kc, readCrds(path.join(ROOT, 'crds')));
    core = kc.makeApiClient(CoreV1Api);

    // The chart's API container (charts/sandflow/templates/api-deployment.yaml): its command and env.
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    const pod: V1Pod = {
      metadata: { name: POD },
      spec: {
        restartPolicy: 'Never',
        terminationGracePeriodSeconds: 5,
        containers: [
          {
            name: 'api',
            image: `${registry.host}/sandflow/sandflow:e2e`,
            command: ['node', '--import', 'tsx', 'embedded/src/cluster/api.ts'],
            env: Object.entries({
              SANDFLOW_PORT: String(port),
              SANDFLOW_HOST: '127.0.0.1', // the Pod shares the host's network here
              SANDFLOW_PUBLIC_URL: url,
              SANDFLOW_SECURE_COOKIES: 'false',
              SANDFLOW_MAIL_FROM: 'sandflow@example.com',
              SANDFLOW_LOG_LEVEL: 'info',
              SANDFLOW_DATA_DIR: '/tmp/sandflow',
              SANDFLOW_BUILDER_ENABLED: 'true',
              SANDFLOW_BUILDER_HELPER_IMAGE: 'busybox:1.36.1-musl',
              SANDFLOW_JWT_SECRET: JWT_SECRET,
              DATABASE_URL: `postgres://postgres@127.0.0.1:${pgPort}/postgres`,
              SANDFLOW_ADMIN_EMAIL: ADMIN.email,
              SANDFLOW_ADMIN_PASSWORD: ADMIN.password,
              KUBECONFIG: '/etc/sandflow/kubeconfig',
            }).map(([name, value]) => ({ name, value })),
            volumeMounts: [
              { name: 'tmp', mountPath: '/tmp' },
              { name: 'kubeconfig', mountPath: '/etc/sandflow/kubeconfig', readOnly: true },
            ],
          },
        ],
        volumes: [
          { name: 'tmp', emptyDir: {} },
          { name: 'kubeconfig', hostPath: { path: kubeLite.kubeconfigPath!, type: 'File' } },
        ],
      },
    };
    await core.createNamespacedPod({ namespace: ns, body: pod });
    const ready = await until(
      async () => {
        // Pulling and unpacking the image (~700 MB unpacked) takes minutes on a loaded machine.
        const p = await core.readNamespacedPod({ name: POD, namespace: ns }).catch(() => undefined);
        if (['Failed', 'Succeeded'].includes(p?.status?.phase ?? ''))
          throw new Error(`the Pod ended (${p?.status?.phase}): ${JSON.stringify(p?.status)}`);
        const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(5_000) }).catch(
          () => undefined,
        );
        return res?.status ?? 0;
      },
      (status) => status === 200,
      `${url}/readyz`,
      600_000,
    ).catch(async (e: Error) => {
      throw new Error(`${e.message}\n--- the Pod's log ---\n${await podLog()}`);
    });
    expect(ready).toBe(200);
  }, 1_500_000);

  afterAll(async () => {
    if (kubeLite) {
      await core.deleteNamespacedPod({ name: POD, namespace: ns }).catch(() => undefined);
      await kubeLite.close();
    }
    await kubeDb?.destroy();
    if (pgStarted)
      await asPostgres([`${pgBin}/pg_ctl`, '-D', pgData, '-m', 'immediate', '-w', 'stop']).catch(
        () => undefined,
      );
    await registry?.stop();
    for (const dir of [tmp, pgData]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
  }, 600_000);

  it('is the app appended as one layer onto the Debian Node base, non-root, with the API command', async () => {
    const store = new RegistryStore({ host: registry.host });
    const pushed = await store.getManifest('sandflow/sandflow', 'e2e');
    expect(pushed.digest).toBe(built.digest);
    const manifest = parseManifest(pushed, 'sandflow/sandflow:e2e') as ImageManifest;
    expect(manifest.layers.map((l) => l.digest)).toEqual([baseLayer, manifest.layers[1]!.digest]);
    expect(built.bytes).toBe(manifest.layers.reduce((n, l) => n + l.size, 0));
    const chunks: Buffer[] = [];
    for await (const c of await store.getBlob('sandflow/sandflow', manifest.config)) chunks.push(c as Buffer);
    const config = JSON.parse(Buffer.concat(chunks).toString()) as {
      config: { User: string; WorkingDir: string; Cmd: string[]; Env: string[] };
    };
    expect(config.config).toMatchObject({
      User: '1000:1000',
      WorkingDir: '/app',
      Cmd: ['node', '--import', 'tsx', 'embedded/src/cluster/api.ts'],
    });
    expect(config.config.Env).toContain('NODE_ENV=production');
  });

  it("runs as user 1000 in /app on Debian's Node and loads the prebuilt native modules", async () => {
    // Through pods/exec, in the running container: what the image carries, not the host.
    const script = [
      "const pty = require('/app/node_modules/@lydell/node-pty');",
      "const argon2 = require('/app/node_modules/argon2');",
      'console.log(JSON.stringify({ node: process.version, uid: process.getuid(), cwd: process.cwd(),',
      '  pty: typeof pty.spawn, argon2: typeof argon2.hash }));',
    ].join('\n');
    let out = '';
    let err = '';
    let status: V1Status | undefined;
    const sink = (add: (s: string) => void) =>
      new Writable({
        write(chunk: Buffer, _enc, done) {
          add(chunk.toString());
          done();
        },
      });
    const ws = await new Exec(kc).exec(
      ns,
      POD,
      'api',
      ['node', '-e', script],
      sink((s) => (out += s)),
      sink((s) => (err += s)),
      null,
      false,
      (s) => (status = s),
    );
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('exec did not end in 50 s')), 50_000);
      ws.on('close', () => (clearTimeout(timer), resolve()));
    });
    expect(status?.status, err).toBe('Success');
    expect(JSON.parse(out)).toEqual({
      node: expect.stringMatching(/^v20\.(19|[2-9]\d)\./),
      uid: 1000,
      cwd: '/app',
      pty: 'function',
      argon2: 'function',
    });
  });

  it('answers /readyz and /healthz', async () => {
    const readyz = await fetch(`${url}/readyz`);
    expect(readyz.status).toBe(200);
    expect(await readyz.json()).toEqual({ status: 'ok' });
    const healthz = await fetch(`${url}/healthz`);
    expect(await healthz.text()).toBe('ok');
  });

  it('logs the super admin in over /api/v0 and knows who it is', async () => {
    const login = await fetch(`${url}/api/v0/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: ADMIN.email, password: ADMIN.password }),
    });
    expect(login.status).toBe(200);
    const token = ((await login.json()) as { result: { access_token: string } }).result.access_token;
    expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    const me = await fetch(`${url}/api/v0/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(me.status).toBe(200);
    expect(JSON.stringify(await me.json())).toContain(ADMIN.email);
    const wrong = await fetch(`${url}/api/v0/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: ADMIN.email, password: 'not-the-password' }),
    });
    expect(wrong.status).toBe(401);
  });

  it("serves the console's index.html and its assets from the image's console/dist", async () => {
    const index = await fetch(`${url}/`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toMatch(/text\/html/);
    const html = await index.text();
    const script = /<script[^>]+src="([^"]+\.js)"/.exec(html)?.[1];
    expect(script).toMatch(/^\/assets\//);
    const asset = await fetch(`${url}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
  });
});
