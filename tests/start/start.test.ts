import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ApiextensionsV1Api, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot as repo, startPlatform, type Platform } from '../support/platform.js';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandflow-start-'));
const children = new Set<ChildProcess>();
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  fs.rmSync(dataDir, { recursive: true, force: true });
});

type Started = Platform;

/** `npm start`'s entry point with its own data folder and free ports. */
async function start(): Promise<Started> {
  const platform = await startPlatform({
    dataDir,
    env: { SANDFLOW_ADMIN_EMAIL: 'root@example.com', SANDFLOW_ADMIN_PASSWORD: 'Start-Test-Passw0rd!' },
  });
  children.add(platform.child);
  return platform;
}

const stop = (s: Started, signal: NodeJS.Signals) => s.stop(signal);

/** One sample of a Prometheus text exposition, its labels in any order. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    const m = /^(\w+)(?:\{(.*)\})? (\S+)$/.exec(line);
    const have = m?.[2]?.split(/,(?=\w+=")/) ?? [];
    if (m?.[1] === name && have.length === want.length && want.every((w) => have.includes(w)))
      return Number(m[3]);
  }
  return undefined;
}

function kube(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(path.join(dataDir, 'kubeconfig'));
  return kc;
}

describe('npm start', () => {
  it(
    'boots kube-lite with the CRDs, serves health, stops on SIGTERM and keeps state across restarts',
    { timeout: 180_000 },
    async () => {
      const first = await start();
      expect(first.output()).toContain(
        `To use kubectl: export KUBECONFIG=${path.join(dataDir, 'kubeconfig')}`,
      );
      expect(await (await fetch(`${first.url}/healthz`)).text()).toBe('ok');
      expect((await fetch(`${first.url}/readyz`)).status).toBe(200);
      const metrics = await (await fetch(`${first.url}/metrics`)).text();
      expect(metrics).toContain('# TYPE sandflow_operator_reconciles_total counter');
      expect(metrics).toMatch(/^sandflow_operator_leader 1$/m);
      const login = await fetch(`${first.url}/api/v0/login`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ username: 'root@example.com', password: 'Start-Test-Passw0rd!' }),
      });
      expect(login.status, `${await login.clone().text()}\n${first.output()}`).toBe(200);
      const token = ((await login.json()) as { result: { access_token: string } }).result.access_token;
      // One /metrics for the process: the sign-in was timed by route template, the operator reconciled.
      const after = await (await fetch(`${first.url}/metrics`)).text();
      const login2xx = { method: 'POST', route: '/api/v0/login', status_class: '2xx' };
      expect(sample(after, 'sandflow_api_request_duration_seconds_count', login2xx)).toBe(1);
      expect(sample(after, 'sandflow_api_request_duration_seconds_bucket', { ...login2xx, le: '+Inf' })).toBe(
        1,
      );
      expect(
        sample(after, 'sandflow_operator_reconciles_total', {
          controller: 'clustermanager',
          result: 'success',
        }),
      ).toBeGreaterThan(0);
      expect(sample(after, 'process_resident_memory_bytes')).toBeGreaterThan(0);
      const org = await fetch(`${first.url}/api/v0/organizations`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
        body: JSON.stringify({ name: 'Start Test' }),
      });
      expect(org.status).toBeLessThan(300);
      const ns = await kube().makeApiClient(CoreV1Api).readNamespace({ name: 'sf-start-test' });
      expect(ns.metadata?.labels?.['sandflow.io/organization']).toBeDefined();
      const crds = await kube().makeApiClient(ApiextensionsV1Api).listCustomResourceDefinition();
      const names = crds.items.map((c) => c.metadata!.name);
      for (const f of fs.readdirSync(path.join(repo, 'crds')).filter((x) => x.endsWith('.yaml'))) {
        expect(names).toContain(f.replace(/^sandflow\.io_(.+)\.yaml$/, '$1.sandflow.io'));
      }
      const core = kube().makeApiClient(CoreV1Api);
      await core.createNamespace({ body: { metadata: { name: 'kept' } } });
      const cm = await core.createNamespacedConfigMap({
        namespace: 'kept',
        body: { metadata: { name: 'kept' }, data: { a: '1' } },
      });
      expect(await stop(first, 'SIGTERM')).toBe(0);

      const second = await start();
      try {
        const read = await kube()
          .makeApiClient(CoreV1Api)
          .readNamespacedConfigMap({ name: 'kept', namespace: 'kept' });
        expect(read.metadata?.uid).toBe(cm.metadata?.uid);
        expect(read.metadata?.resourceVersion).toBe(cm.metadata?.resourceVersion);
      } finally {
        expect(await stop(second, 'SIGINT')).toBe(0);
      }
    },
  );

  it('refuses a bad configuration with a message naming the variable', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'embedded/src/main.ts'], {
      cwd: repo,
      env: { ...process.env, SANDFLOW_DATA_DIR: dataDir, SANDFLOW_PORT: 'eighty' },
    });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise((resolve) => child.on('exit', resolve));
    expect(code).toBe(1);
    expect(err).toContain('SANDFLOW_PORT: must be a number');
  }, 60_000);
});
