import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { eventually, uniqueName } from '../support/kube.js';

const KUBECTL = '/usr/bin/kubectl';
const present = fs.existsSync(KUBECTL);
if (!present) console.warn(`kubectl suite skipped: ${KUBECTL} is not installed`);
const run = promisify(execFile);
const repo = path.resolve(import.meta.dirname, '../..');
let dir: string;
let ns: string;

async function kubectl(...args: string[]): Promise<string> {
  const { stdout } = await run(KUBECTL, args, {
    env: { ...process.env, KUBECONFIG: inject('kubeconfig') },
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout;
}

async function kubectlFails(...args: string[]): Promise<string> {
  try {
    await kubectl(...args);
  } catch (e) {
    return String((e as { stderr?: string }).stderr ?? e);
  }
  throw new Error(`kubectl ${args.join(' ')} was expected to fail`);
}

function manifest(name: string, text: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

describe.skipIf(!present)('kubectl against the API', () => {
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandflow-kubectl-'));
    ns = uniqueName('kubectl');
    await kubectl('create', 'namespace', ns);
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('applies, re-applies as a no-op and applies a change (client-side)', async () => {
    const file = manifest(
      'cm.yaml',
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: ${ns}\ndata:\n  mode: fast\n`,
    );
    expect(await kubectl('apply', '-f', file)).toContain('configmap/settings created');
    const rv1 = JSON.parse(await kubectl('get', '-n', ns, 'configmap', 'settings', '-o', 'json')).metadata
      .resourceVersion;
    expect(await kubectl('apply', '-f', file)).toContain('configmap/settings unchanged');
    const rv2 = JSON.parse(await kubectl('get', '-n', ns, 'configmap', 'settings', '-o', 'json')).metadata
      .resourceVersion;
    expect(rv2).toBe(rv1);
    manifest(
      'cm.yaml',
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: ${ns}\ndata:\n  mode: slow\n  extra: "1"\n`,
    );
    expect(await kubectl('apply', '-f', file)).toContain('configmap/settings configured');
    const data = JSON.parse(await kubectl('get', '-n', ns, 'configmap', 'settings', '-o', 'json')).data;
    expect(data).toEqual({ mode: 'slow', extra: '1' });
  });

  it('applies server-side, also with --force-conflicts', async () => {
    const file = manifest(
      'ssa.yaml',
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\n  namespace: ${ns}\ndata:\n  a: "1"\n`,
    );
    expect(await kubectl('apply', '--server-side', '-f', file)).toContain('configmap/ssa serverside-applied');
    const obj = JSON.parse(
      await kubectl('get', '-n', ns, 'configmap', 'ssa', '-o', 'json', '--show-managed-fields'),
    );
    expect(obj.metadata.managedFields.map((m: { manager: string }) => m.manager)).toContain('kubectl');
    await kubectl('patch', '-n', ns, 'configmap', 'ssa', '--type=merge', '-p', '{"data":{"a":"2"}}');
    const conflict = await kubectlFails('apply', '--server-side', '-f', file);
    expect(conflict).toMatch(/conflict/i);
    expect(await kubectl('apply', '--server-side', '--force-conflicts', '-f', file)).toContain(
      'serverside-applied',
    );
  });

  it('applies the sample manifests and shows printer columns', async () => {
    const samples = path.join(repo, 'config/samples');
    if (!fs.existsSync(samples)) return;
    const crdFiles = fs.readdirSync(path.join(repo, 'crds')).filter((f) => f.endsWith('.yaml'));
    await kubectl('apply', ...crdFiles.flatMap((f) => ['-f', path.join(repo, 'crds', f)]));
    const out = await kubectl('apply', '-f', samples);
    expect(out).toMatch(/created|configured|unchanged/);
    expect(await kubectl('apply', '-f', samples)).not.toMatch(/ configured| created/);
    const table = await kubectl('get', 'sandboxes', '-A', '-o', 'wide');
    expect(table.split('\n')[0]).toMatch(/^NAMESPACE\s+NAME/);
  });

  it('gets yaml, json and wide output', async () => {
    await kubectl('create', 'configmap', 'shown', '-n', ns, '--from-literal=k=v');
    expect(await kubectl('get', '-n', ns, 'configmaps', 'shown', '-o', 'yaml')).toContain('k: v');
    expect(JSON.parse(await kubectl('get', '-n', ns, 'configmaps', 'shown', '-o', 'json')).data).toEqual({
      k: 'v',
    });
    const wide = await kubectl('get', '-n', ns, 'configmaps', 'shown', '-o', 'wide');
    expect(wide).toMatch(/^NAME\s+DATA\s+AGE/);
    expect(wide).toMatch(/shown\s+1\s+\d+s/);
  });

  it('labels, annotates and selects', async () => {
    await kubectl('create', 'configmap', 'tagged', '-n', ns);
    await kubectl('label', '-n', ns, 'configmaps', 'tagged', 'tier=web');
    await kubectl('annotate', '-n', ns, 'configmaps', 'tagged', 'note=hello');
    const obj = JSON.parse(await kubectl('get', '-n', ns, 'configmaps', 'tagged', '-o', 'json'));
    expect(obj.metadata.labels).toEqual({ tier: 'web' });
    expect(obj.metadata.annotations).toMatchObject({ note: 'hello' });
    expect(await kubectl('get', '-n', ns, 'configmaps', '-l', 'tier=web', '-o', 'name')).toBe(
      'configmap/tagged\n',
    );
  });

  it('watches with get -w and sees a change', async () => {
    await kubectl('create', 'configmap', 'watched', '-n', ns);
    const child = spawn(KUBECTL, ['get', '-n', ns, 'configmaps', 'watched', '-w', '--output-watch-events'], {
      env: { ...process.env, KUBECONFIG: inject('kubeconfig') },
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    try {
      await eventually(() => expect(out).toContain('ADDED'));
      await kubectl('label', '-n', ns, 'configmaps', 'watched', 'changed=yes');
      await eventually(() => expect(out).toContain('MODIFIED'));
    } finally {
      child.kill();
    }
  });

  it('deletes', async () => {
    await kubectl('create', 'configmap', 'doomed', '-n', ns);
    expect(await kubectl('delete', '-n', ns, 'configmaps', 'doomed')).toContain('deleted');
    expect(await kubectlFails('get', '-n', ns, 'configmaps', 'doomed')).toContain('NotFound');
  });

  it('explains our CRDs', async () => {
    const crds = fs.readdirSync(path.join(repo, 'crds')).filter((f) => f.endsWith('.yaml'));
    if (crds.length === 0) return;
    const out = await kubectl('explain', 'sandboxes.spec');
    expect(out).toContain('FIELDS:');
    expect(out).toMatch(/DESCRIPTION:/);
  });
});
