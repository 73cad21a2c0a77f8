// hack/kind-up.sh and hack/kind-down.sh (the tester's path on kind; they need docker, kind, helm
// and kubectl on a connected machine, so here they are checked without running them): bash
// parses them, shellcheck (where installed) finds nothing, every repository path they name
// exists, Argo is pinned at the version of the CRDs the project vendors, the chart values
// kind-up.sh installs with pass the chart's schema, and a machine without the tools gets a message
// naming each missing one before anything happens.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, inject, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const helm = inject('helm');
const scripts = ['hack/kind-up.sh', 'hack/kind-down.sh'];
const hasShellcheck = spawnSync('shellcheck', ['--version'], { stdio: 'ignore' }).status === 0;
if (!hasShellcheck) console.warn('kind scripts: shellcheck not installed, its check does not run');

const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');

describe('hack/kind-up.sh and hack/kind-down.sh', () => {
  it.each(scripts)('%s: bash -n parses it, it is executable and strict', (file) => {
    const r = spawnSync('bash', ['-n', path.join(root, file)], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(fs.statSync(path.join(root, file)).mode & 0o111).not.toBe(0);
    expect(read(file)).toContain('set -euo pipefail');
  });

  it.runIf(hasShellcheck).each(scripts)('%s: shellcheck finds nothing', (file) => {
    const r = spawnSync('shellcheck', [path.join(root, file)], { encoding: 'utf8' });
    expect(r.stdout).toBe('');
    expect(r.status).toBe(0);
  });

  it('every "$root/…" path kind-up.sh names exists: the chart, the samples, the Dockerfile', () => {
    const named = [...read('hack/kind-up.sh').matchAll(/\$root\/([\w./-]+)/g)].map((m) => m[1]!);
    expect(named).toEqual(expect.arrayContaining(['charts/sandflow', 'config/samples', 'Dockerfile']));
    for (const p of named) expect(fs.existsSync(path.join(root, p)), p).toBe(true);
    // The sample objects it waits for are the samples'.
    const samples = fs
      .readdirSync(path.join(root, 'config/samples'))
      .map((f) => read(path.join('config/samples', f)))
      .join('\n');
    for (const [, name] of read('hack/kind-up.sh').matchAll(/workflows\.sandflow\.io\/([\w-]+)/g))
      expect(samples).toContain(`name: ${name}`);
  });

  it('Argo Workflows is installed at the version of the vendored Argo CRDs', () => {
    const pinned = /ARGO_VERSION="\$\{ARGO_VERSION:-(v[\d.]+)\}"/.exec(read('hack/kind-up.sh'))?.[1];
    const vendored = /Argo Workflows \*\*(v[\d.]+)\*\*/.exec(read('embedded/argo-crds/README.md'))?.[1];
    expect(pinned).toBeDefined();
    expect(pinned).toBe(vendored);
  });

  it.skipIf(!helm)('the chart renders with the values kind-up.sh installs it with', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandflow-kind-'));
    try {
      const values = spawnSync('bash', ['-c', 'source hack/kind-up.sh && chart_values'], {
        cwd: root,
        encoding: 'utf8',
      });
      expect(values.status, values.stderr).toBe(0);
      fs.writeFileSync(path.join(dir, 'values.yaml'), values.stdout);
      const r = spawnSync(
        helm,
        [
          'template',
          'sandflow',
          path.join(root, 'charts/sandflow'),
          '--namespace',
          'sandflow',
          '--kube-version',
          '1.33.0',
          '-f',
          path.join(dir, 'values.yaml'),
        ],
        { encoding: 'utf8' },
      );
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      const docs = parseAllDocuments(r.stdout).map(
        (d) =>
          d.toJS() as {
            kind: string;
            metadata: { name: string };
            spec?: { template?: { spec?: { containers?: { image: string; imagePullPolicy: string }[] } } };
          } | null,
      );
      const deployments = docs.filter((d) => d?.kind === 'Deployment');
      // What kind-up.sh restarts and waits for, running the image it loads into kind.
      expect(deployments.map((d) => d!.metadata.name).sort()).toEqual(['sandflow-api', 'sandflow-operator']);
      for (const d of deployments)
        expect(d!.spec!.template!.spec!.containers![0]).toMatchObject({
          image: 'sandflow:dev',
          imagePullPolicy: 'Never',
        });
      // The Secret is kind-up.sh's own (sandflow-env), not one the chart makes.
      expect(docs.some((d) => d?.kind === 'Secret' && d.metadata.name === 'sandflow-secrets')).toBe(false);
      // The Service it port-forwards to.
      expect(docs.some((d) => d?.kind === 'Service' && d.metadata.name === 'sandflow')).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each([
    { file: 'hack/kind-up.sh', missing: ['docker', 'kind', 'helm', 'kubectl'] },
    { file: 'hack/kind-down.sh', missing: ['kind'] },
  ])('$file without the tools on PATH: exit 2 naming each missing one', ({ file, missing }) => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'sandflow-nopath-'));
    try {
      const r = spawnSync('/bin/bash', [path.join(root, file)], {
        encoding: 'utf8',
        env: { PATH: empty, HOME: empty },
      });
      expect(r.status, r.stderr).toBe(2);
      for (const tool of missing) expect(r.stderr).toContain(`${tool} is not on PATH — install it:`);
      expect(r.stdout).toBe('');
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });
});
