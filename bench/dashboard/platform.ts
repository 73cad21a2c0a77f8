// The platform the dashboard benchmark (and a look at the session screens) talks to: `npm start`'s
// entry point on a free port with its own data folder, serving a fresh build of the console, and an
// organization with a group and three sandboxes, through the same API calls a browser makes.
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

export const repoRoot = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);
export const EMAIL = 'bench@dashboard.local';
export const PASSWORD = 'Bench-dashboard-pass-1';

export async function api(url: string, cookie: string, method: string, route: string, body?: unknown) {
  const response = await fetch(`${url}/api/v0${route}`, {
    method,
    headers: { cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${text.slice(0, 300)}`);
  const cookies = response.headers.getSetCookie().map((c) => c.split(';')[0]!);
  return { result: (JSON.parse(text) as { result: unknown }).result, cookies };
}

function cookieOf(cookies: string[], previous = '') {
  const jar = new Map(
    previous
      .split('; ')
      .filter(Boolean)
      .map((c) => c.split('=', 2) as [string, string]),
  );
  for (const c of cookies) {
    const [k, v] = c.split('=', 2) as [string, string];
    jar.set(k, v);
  }
  return [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
}

/** A layered DAG of `nodes` sandboxes (layers of 50 or more, 220 apart), each fed by 3 of the layer before. */
export function layeredGraph(nodes: number, sandboxes: string[], owner: string) {
  const layerSize = Math.max(50, Math.round(nodes / 100));
  const list = Array.from({ length: nodes }, (_v, i) => ({
    id: `n${i}`,
    name: `step_${i}`,
    x: Math.floor(i / layerSize) * 220,
    y: (i % layerSize) * 150,
    src_id: sandboxes[i % sandboxes.length]!,
    owner,
    continueOnFail: false,
    variables: [],
  }));
  const edges: { id: string; from: string; to: string; type: 'single' }[] = [];
  for (let i = layerSize; i < nodes; i++) {
    const base = (Math.floor(i / layerSize) - 1) * layerSize;
    for (let k = 0; k < 3; k++) {
      const from = base + ((i * 7 + k * 13) % layerSize);
      edges.push({ id: `n${from}->n${i}`, from: `n${from}`, to: `n${i}`, type: 'single' });
    }
  }
  return { nodes: list, switches: [], edges };
}

/** Signs in, makes an organization, a group and three sandboxes (kubectl apply). */
export async function seed(url: string, dataDir: string) {
  const login = await api(url, '', 'POST', '/login', { username: EMAIL, password: PASSWORD });
  let cookie = cookieOf(login.cookies);
  const org = (await api(url, cookie, 'POST', '/organizations', {
    name: 'Bench',
    admins: [],
    quota: { cpu: 0, memory: 0, disk: 0 },
  })) as { result: { id: string; slug: string } };
  cookie = cookieOf(
    (await api(url, cookie, 'POST', '/preferences/organization', { name: 'Bench' })).cookies,
    cookie,
  );
  const me = (await api(url, cookie, 'GET', '/me')).result as { id: string };
  const group = (
    await api(url, cookie, 'POST', '/group', { name: 'research', members: [me.id], admins: [me.id] })
  ).result as { id: string };
  const ids = [1, 2, 3].map((n) => `8f1c2a0e-1b7d-4c55-9a3e-0d8b7f2c1b0${n}`);
  const yaml = ids
    .map(
      (id, n) => `apiVersion: sandflow.io/v1alpha1
kind: Sandbox
metadata:
  name: ${id}
  namespace: sf-${org.result.slug}
  labels: { sandflow.io/organization: ${org.result.id}, sandflow.io/owner: ${me.id} }
spec:
  name: box${n}
  version: 1.0.0
  entrypoint: echo ${n}
  architecture: amd64
  owner: ${me.id}
  author: Bench
  sourceImage: { image: busybox, version: latest }
  visibility: { type: private }
`,
    )
    .join('---\n');
  const file = path.join(dataDir, 'sandboxes.yaml');
  fs.writeFileSync(file, yaml);
  await run('kubectl', ['apply', '-f', file], {
    env: { ...process.env, KUBECONFIG: path.join(dataDir, 'kubeconfig') },
  });
  return { cookie, ids, me: me.id, group: group.id };
}

/**
 * Builds the console, starts the platform with it; resolves once it serves. Given a `dataDir`, the
 * platform uses it and leaves it in place when stopped (bench/org-dashboard restarts on the same
 * PGlite files after seeding them); otherwise a temp folder, removed at the end. Given a
 * `consoleDir`, that console build is served as it is (a build of an earlier commit, to compare);
 * `minify: false` builds it unminified (still a production build), so a profile names functions.
 */
export async function startPlatform(
  options: { dataDir?: string; consoleDir?: string; minify?: boolean } = {},
) {
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'sandflow-bench-dashboard-'));
  const consoleDir = options.consoleDir ?? path.join(dataDir, 'console');
  if (!options.consoleDir)
    await run(
      'npx',
      [
        'vite',
        'build',
        '--outDir',
        consoleDir,
        '--emptyOutDir',
        '--logLevel',
        'error',
        ...(options.minify === false ? ['--minify', 'false'] : []),
      ],
      { cwd: path.join(repoRoot, 'console') },
    );
  const child = spawn(process.execPath, ['--import', 'tsx', 'embedded/src/main.ts'], {
    cwd: repoRoot,
    env: {
      ...process.env,
      SANDFLOW_DATA_DIR: dataDir,
      SANDFLOW_PORT: '0',
      SANDFLOW_KUBE_PORT: '0',
      SANDFLOW_ADMIN_EMAIL: EMAIL,
      SANDFLOW_ADMIN_PASSWORD: PASSWORD,
      SANDFLOW_CONSOLE_DIR: consoleDir,
      SANDFLOW_RUNTIME: 'process',
      SANDFLOW_LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the platform did not start:\n${out}`)), 180_000);
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /"url":"(http:\/\/127\.0\.0\.1:\d+)","msg":"sandflow serving"/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.on('exit', (code) => reject(new Error(`the platform exited with ${code}:\n${out}`)));
  });
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await exited;
    }
    if (!options.dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  };
  return { url, dataDir, stop };
}
