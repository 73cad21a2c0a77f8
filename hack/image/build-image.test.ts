// hack/image's daemonless build against a real local registry (docker-registry): a base image is
// pulled from it, the app folder appended as one root-owned layer, and the result pushed back with
// the non-root user, /app and the command in its config. No container engine anywhere.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RegistryStore, parseManifest, type ImageManifest } from '@sandflow/images';
import {
  fixtureImage,
  pushFixture,
  registryMissing,
  startRegistry,
  type TestRegistry,
} from '@sandflow/images/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_DIR, APP_USER, buildAppImage } from './build-image.js';
import { DEFAULT_CMD } from './build.js';
import { RUNTIME_WORKSPACES } from './stage.js';

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.from(c as Buffer));
  return Buffer.concat(chunks);
}

describe('hack/image: the daemonless app image', () => {
  const missing = registryMissing();
  let registry: TestRegistry;
  let store: RegistryStore;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'sandflow-image-test-'));
  const base = fixtureImage({ layerSizes: [2048, 512] });

  beforeAll(async () => {
    if (missing) throw new Error(`the local registry cannot run here: ${missing}`);
    registry = await startRegistry();
    store = new RegistryStore({ host: registry.host });
    await pushFixture(store, 'library/node', base, '20-slim');
    fs.mkdirSync(path.join(work, 'root/app/embedded/src/cluster'), { recursive: true });
    fs.writeFileSync(path.join(work, 'root/app/package.json'), '{"name":"sandflow"}\n');
    fs.writeFileSync(path.join(work, 'root/app/embedded/src/cluster/api.ts'), 'console.log("api");\n');
  }, 60_000);

  afterAll(async () => {
    await registry?.stop();
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('appends the app as one layer onto the base, pushes it, and sets user, folder and command', async () => {
    const result = await buildAppImage({
      root: path.join(work, 'root'),
      from: store,
      fromRepository: 'library/node',
      reference: '20-slim',
      to: store,
      toRepository: 'sandflow/sandflow',
      tag: 'test',
      architecture: 'amd64',
      cmd: DEFAULT_CMD,
    });
    const pushed = await store.getManifest('sandflow/sandflow', 'test');
    expect(pushed.digest).toBe(result.digest);
    const manifest = parseManifest(pushed, 'sandflow/sandflow:test') as ImageManifest;
    // The base's layers unchanged, then ours.
    expect(manifest.layers.slice(0, 2).map((l) => l.digest)).toEqual(base.layers.map((l) => l.digest));
    expect(manifest.layers).toHaveLength(3);
    const config = JSON.parse(
      (await readAll(await store.getBlob('sandflow/sandflow', manifest.config))).toString(),
    ) as {
      config: { User: string; WorkingDir: string; Cmd: string[]; Env: string[] };
      rootfs: { diff_ids: string[] };
    };
    expect(config.config).toMatchObject({ User: APP_USER, WorkingDir: APP_DIR, Cmd: DEFAULT_CMD });
    expect(APP_USER).toBe('1000:1000');
    expect(config.config.Env).toEqual(['PATH=/usr/bin:/bin', 'NODE_ENV=production']);
    expect(config.rootfs.diff_ids).toHaveLength(3);
    // The layer: the app's files under app/, owned by root (the runtime user reads, never writes).
    const layer = await readAll(await store.getBlob('sandflow/sandflow', manifest.layers[2]!));
    fs.writeFileSync(path.join(work, 'layer.tar.gz'), layer);
    const listing = execFileSync('tar', ['-tzvf', path.join(work, 'layer.tar.gz'), '--numeric-owner'], {
      encoding: 'utf8',
    });
    const entries = listing
      .trim()
      .split('\n')
      .map((line) => ({ owner: line.split(/\s+/)[1], name: line.split(/\s+/).at(-1)!.replace(/\/$/, '') }));
    expect(entries.map((e) => e.name).sort()).toEqual([
      'app',
      'app/embedded',
      'app/embedded/src',
      'app/embedded/src/cluster',
      'app/embedded/src/cluster/api.ts',
      'app/package.json',
    ]);
    for (const e of entries) expect(e.owner, e.name).toBe('0/0');
  });

  it('refuses a staging folder holding anything but app/', async () => {
    fs.mkdirSync(path.join(work, 'stray/app'), { recursive: true });
    fs.writeFileSync(path.join(work, 'stray/app/a.txt'), 'a');
    fs.writeFileSync(path.join(work, 'stray/secret.txt'), 'not for the image');
    await expect(
      buildAppImage({
        root: path.join(work, 'stray'),
        from: store,
        fromRepository: 'library/node',
        reference: '20-slim',
        to: store,
        toRepository: 'sandflow/sandflow',
        tag: 'stray',
        architecture: 'amd64',
        cmd: DEFAULT_CMD,
      }),
    ).rejects.toThrow(/must hold only app\/, found secret\.txt/);
    await expect(store.getManifest('sandflow/sandflow', 'stray')).rejects.toThrow();
  });
});

describe('the Dockerfile and the daemonless stage agree', () => {
  const dockerfile = fs.readFileSync(path.resolve(import.meta.dirname, '../../Dockerfile'), 'utf8');
  it.each(RUNTIME_WORKSPACES)('the Dockerfile installs the production dependencies of %s', (workspace) => {
    expect(dockerfile).toContain(`--workspace=${workspace}`);
    expect(dockerfile).toContain(`COPY --from=build /src/${workspace} ${workspace}`);
  });
  it('and no other workspace', () => {
    const named = [...dockerfile.matchAll(/--workspace=(\S+)/g)].map((m) => m[1]);
    expect(named.sort()).toEqual([...RUNTIME_WORKSPACES].sort());
  });
});
