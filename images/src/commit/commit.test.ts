import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import tar from 'tar-stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sha256Digest } from '../digest.js';
import { LayoutStore } from '../layout/store.js';
import { MediaType } from '../media-types.js';
import { RegistryStore } from '../registry/store.js';
import { getImageConfig, resolveImage } from '../store.js';
import { registryMissing, startRegistry } from '../testing/registry.js';
import { applyLayer, finishRoot, newApplyState } from '../unpack/index.js';
import { appendLayer, diffRoots, layerBlob, layerEntries, writeLayer, type RootChange } from './index.js';

let tmp: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'commit-'));
});
afterEach(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** A tree described as path → content ('/' at the end: folder; '-> x': symlink). */
type Tree = Record<string, string>;

function makeTree(root: string, tree: Tree) {
  fs.mkdirSync(root, { recursive: true });
  for (const [rel, body] of Object.entries(tree)) {
    const p = path.join(root, rel);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    if (rel.endsWith('/')) fs.mkdirSync(p, { recursive: true });
    else if (body.startsWith('-> ')) fs.symlinkSync(body.slice(3), p);
    else fs.writeFileSync(p, body);
  }
  // Both trees start from the same times, as a copy made with cp -a does.
  execFileSync('find', [root, '-exec', 'touch', '-h', '-d', '@1000000000', '{}', '+']);
}

/** lower, and upper = a `cp -a` of it changed by `change`. */
function fixture(tree: Tree, change: (upper: string) => void) {
  const lower = path.join(tmp, 'lower');
  const upper = path.join(tmp, 'upper');
  makeTree(lower, tree);
  execFileSync('cp', ['-a', lower, upper]);
  const since = fs.statSync(upper, { bigint: true }).ctimeNs;
  change(upper);
  return { lower, upper, since };
}

const BASE: Tree = {
  'etc/': '',
  'etc/os-release': 'ID=test\n',
  'etc/hosts': '127.0.0.1 localhost\n',
  'bin/': '',
  'bin/tool': 'tool',
  'bin/sh': '-> tool',
  'var/lib/pkg/a': 'a',
  'var/lib/pkg/b': 'b',
};

const at = (upper: string, rel: string) => path.join(upper, rel);

describe('diffRoots', () => {
  it.each<{ what: string; change: (u: string) => void; expected: RootChange[] }>([
    { what: 'nothing', change: () => undefined, expected: [] },
    {
      what: 'an added file',
      change: (u) => fs.writeFileSync(at(u, 'etc/new'), 'x'),
      expected: [{ path: 'etc/new', kind: 'added', type: 'file' }],
    },
    {
      what: 'an added folder with its content',
      change: (u) => {
        fs.mkdirSync(at(u, 'opt/app'), { recursive: true });
        fs.writeFileSync(at(u, 'opt/app/run'), 'x');
      },
      expected: [
        { path: 'opt', kind: 'added', type: 'directory' },
        { path: 'opt/app', kind: 'added', type: 'directory' },
        { path: 'opt/app/run', kind: 'added', type: 'file' },
      ],
    },
    {
      what: 'a rewritten file',
      change: (u) => fs.writeFileSync(at(u, 'etc/hosts'), '10.0.0.1 other\n'),
      expected: [{ path: 'etc/hosts', kind: 'modified', type: 'file' }],
    },
    {
      what: 'a same-size rewrite with the old mtime put back',
      change: (u) => {
        fs.writeFileSync(at(u, 'bin/tool'), 'TOOL');
        fs.utimesSync(at(u, 'bin/tool'), 1000000000, 1000000000);
      },
      expected: [{ path: 'bin/tool', kind: 'modified', type: 'file' }],
    },
    {
      what: 'a chmod',
      change: (u) => fs.chmodSync(at(u, 'etc/hosts'), 0o600),
      expected: [{ path: 'etc/hosts', kind: 'modified', type: 'file' }],
    },
    {
      what: 'a retargeted symlink',
      change: (u) => {
        fs.unlinkSync(at(u, 'bin/sh'));
        fs.symlinkSync('/bin/other', at(u, 'bin/sh'));
      },
      expected: [{ path: 'bin/sh', kind: 'modified', type: 'symlink' }],
    },
    {
      what: 'a deleted file',
      change: (u) => fs.unlinkSync(at(u, 'etc/os-release')),
      expected: [{ path: 'etc/os-release', kind: 'deleted', type: 'file' }],
    },
    {
      what: 'a deleted folder, as one deletion',
      change: (u) => fs.rmSync(at(u, 'var/lib'), { recursive: true }),
      expected: [{ path: 'var/lib', kind: 'deleted', type: 'directory' }],
    },
    {
      what: 'a file replaced by a folder',
      change: (u) => {
        fs.unlinkSync(at(u, 'bin/tool'));
        fs.mkdirSync(at(u, 'bin/tool'));
        fs.writeFileSync(at(u, 'bin/tool/inside'), 'x');
      },
      expected: [
        { path: 'bin/tool', kind: 'modified', type: 'directory' },
        { path: 'bin/tool/inside', kind: 'added', type: 'file' },
      ],
    },
  ])('finds $what', async ({ change, expected }) => {
    const { lower, upper, since } = fixture(BASE, change);
    expect(await diffRoots(lower, upper, { since })).toEqual(expected);
  });

  it('hashes only files touched after the copy, and finds a touch that kept the content unchanged', async () => {
    const { lower, upper, since } = fixture(BASE, (u) => {
      fs.writeFileSync(at(u, 'etc/hosts'), '127.0.0.1 localhost\n');
      fs.utimesSync(at(u, 'etc/hosts'), 1000000000, 1000000000);
    });
    expect(await diffRoots(lower, upper, { since })).toEqual([]);
  });
});

describe('layerEntries', () => {
  it('adds parent folders, turns deletions into whiteouts and sorts folders before their content', () => {
    expect(
      layerEntries([
        { path: 'a/b/c', kind: 'added', type: 'file' },
        { path: 'a.txt', kind: 'modified', type: 'file' },
        { path: 'a/gone', kind: 'deleted', type: 'directory' },
        { path: 'top', kind: 'deleted', type: 'file' },
      ]),
    ).toEqual([
      { path: '.wh.top', whiteout: true },
      { path: 'a' },
      { path: 'a/.wh.gone', whiteout: true },
      { path: 'a/b' },
      { path: 'a/b/c' },
      { path: 'a.txt' },
    ]);
  });
});

async function listLayer(file: string) {
  const extract = tar.extract();
  const out: { name: string; type: string; linkname?: string; uid?: number; mode?: number }[] = [];
  const feeding = Readable.from([zlib.gunzipSync(fs.readFileSync(file))]).pipe(extract);
  for await (const entry of feeding) {
    const h = entry.header;
    out.push({
      name: h.name,
      type: h.type ?? 'file',
      ...(h.linkname ? { linkname: h.linkname } : {}),
      uid: h.uid,
      mode: h.mode,
    });
    entry.resume();
  }
  return out;
}

/** Every path of a tree with its type, mode and content or target. */
function snapshot(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const name of fs.readdirSync(path.join(root, rel)).sort()) {
      const r = rel ? `${rel}/${name}` : name;
      const p = path.join(root, r);
      const st = fs.lstatSync(p);
      const mode = (st.mode & 0o7777).toString(8);
      if (st.isDirectory()) {
        out[r] = `dir ${mode}`;
        walk(r);
      } else if (st.isSymbolicLink()) out[r] = `-> ${fs.readlinkSync(p)}`;
      else out[r] = `file ${mode} ${fs.readFileSync(p, 'utf8')}`;
    }
  };
  walk('');
  return out;
}

describe('writeLayer', () => {
  const everything = (u: string) => {
    fs.writeFileSync(at(u, 'etc/new'), 'new');
    fs.writeFileSync(at(u, 'etc/hosts'), 'changed');
    fs.chmodSync(at(u, 'bin/tool'), 0o700);
    fs.rmSync(at(u, 'var/lib'), { recursive: true });
    fs.unlinkSync(at(u, 'etc/os-release'));
    fs.mkdirSync(at(u, 'opt/long/' + 'x'.repeat(120)), { recursive: true });
    fs.writeFileSync(at(u, 'opt/long/' + 'x'.repeat(120) + '/ünïcode'), 'long');
    fs.linkSync(at(u, 'etc/new'), at(u, 'etc/new-link'));
    fs.unlinkSync(at(u, 'bin/sh'));
    fs.symlinkSync('/etc/new', at(u, 'bin/sh'));
  };

  it('is applied by the unpacker onto the image root to give back the changed folder', async () => {
    const { lower, upper, since } = fixture(BASE, everything);
    const layer = await writeLayer(upper, await diffRoots(lower, upper, { since }), path.join(tmp, 'l.tgz'));
    const bytes = fs.readFileSync(layer.path);
    expect(layer).toMatchObject({ digest: sha256Digest(bytes), size: bytes.length });
    expect(layer.diffId).toBe(sha256Digest(zlib.gunzipSync(bytes)));
    const state = newApplyState();
    await applyLayer(lower, layer.digest, fs.createReadStream(layer.path), state);
    await finishRoot(lower, state);
    expect(snapshot(lower)).toEqual(snapshot(upper));
    const newLink = fs.statSync(at(lower, 'etc/new-link'));
    expect(newLink.ino).toBe(fs.statSync(at(lower, 'etc/new')).ino);
  });

  it('writes whiteouts, hard links and the owners it is given', async () => {
    const { lower, upper, since } = fixture(BASE, everything);
    const layer = await writeLayer(
      upper,
      await diffRoots(lower, upper, { since }),
      path.join(tmp, 'l.tgz'),
      (rel) => (rel === 'etc/new' ? [1000, 1000] : [0, 0]),
    );
    const entries = await listLayer(layer.path);
    expect(entries.map((e) => e.name)).toEqual([
      'bin',
      'bin/sh',
      'bin/tool',
      'etc',
      'etc/.wh.os-release',
      'etc/hosts',
      'etc/new',
      'etc/new-link',
      'opt',
      'opt/long',
      `opt/long/${'x'.repeat(120)}`,
      `opt/long/${'x'.repeat(120)}/ünïcode`,
      'var',
      'var/.wh.lib',
    ]);
    expect(entries.find((e) => e.name === 'etc/new')).toMatchObject({ type: 'file', uid: 1000 });
    expect(entries.find((e) => e.name === 'etc/new-link')).toMatchObject({
      type: 'link',
      linkname: 'etc/new',
    });
    expect(entries.find((e) => e.name === 'bin/tool')).toMatchObject({ mode: 0o700, uid: 0 });
  });

  it('gives the same bytes for the same changes', async () => {
    const { lower, upper, since } = fixture(BASE, everything);
    const changes = await diffRoots(lower, upper, { since });
    const a = await writeLayer(upper, changes, path.join(tmp, 'a.tgz'));
    const b = await writeLayer(upper, changes, path.join(tmp, 'b.tgz'));
    expect(b.digest).toBe(a.digest);
  });
});

/** A one-layer image in a layout, its layer a real gzip tar of BASE. */
async function sourceImage(store: LayoutStore, docker = false) {
  const root = path.join(tmp, 'src-root');
  makeTree(root, BASE);
  const empty = path.join(tmp, 'empty');
  fs.mkdirSync(empty);
  const layer = await writeLayer(root, await diffRoots(empty, root), path.join(tmp, 'base.tgz'));
  const config = Buffer.from(
    JSON.stringify({
      architecture: 'amd64',
      os: 'linux',
      config: { Cmd: ['/bin/sh'] },
      rootfs: { type: 'layers', diff_ids: [layer.diffId] },
      history: [{ created_by: 'base' }],
    }),
  );
  const blob = (b: Buffer) => ({ digest: sha256Digest(b), size: b.length, open: () => Readable.from([b]) });
  await store.putBlob('example.org/base', layerBlob(layer));
  await store.putBlob('example.org/base', blob(config));
  const manifest = {
    schemaVersion: 2,
    mediaType: docker ? MediaType.dockerManifest : MediaType.ociManifest,
    config: {
      mediaType: docker ? MediaType.dockerConfig : MediaType.ociConfig,
      ...blob(config),
      open: undefined,
    },
    layers: [
      {
        mediaType: docker ? MediaType.dockerLayerGzip : MediaType.ociLayerGzip,
        digest: layer.digest,
        size: layer.size,
      },
    ],
  };
  await store.putManifest(
    'example.org/base',
    { mediaType: manifest.mediaType, bytes: Buffer.from(JSON.stringify(manifest)) },
    '1',
  );
  return layer;
}

describe('appendLayer', () => {
  it.each([
    { kind: 'OCI', docker: false, layerType: MediaType.ociLayerGzip },
    { kind: 'Docker v2', docker: true, layerType: MediaType.dockerLayerGzip },
  ])('appends to a $kind image in a layout, keeping its kind', async ({ docker, layerType }) => {
    const store = new LayoutStore(path.join(tmp, 'layout'));
    const base = await sourceImage(store, docker);
    const { lower, upper, since } = fixture(BASE, (u) => fs.writeFileSync(at(u, 'etc/new'), 'x'));
    const layer = await writeLayer(upper, await diffRoots(lower, upper, { since }), path.join(tmp, 'l.tgz'));
    const result = await appendLayer({
      from: store,
      fromRepository: 'example.org/base',
      reference: '1',
      architecture: 'amd64',
      to: store,
      toRepository: 'example.org/built',
      tag: 'v2',
      layer: layerBlob(layer),
      createdBy: 'test commit',
    });
    const resolved = await resolveImage(store, 'example.org/built', 'v2', 'amd64');
    expect(resolved.digest).toBe(result.digest);
    expect(resolved.manifest.layers.map((l) => [l.digest, l.mediaType])).toEqual([
      [base.digest, layerType],
      [layer.digest, layerType],
    ]);
    const config = await getImageConfig(store, 'example.org/built', resolved.manifest);
    expect(config.rootfs.diff_ids).toEqual([base.diffId, layer.diffId]);
    expect(config.config?.Cmd).toEqual(['/bin/sh']);
    expect(config.history?.map((h) => (h as { created_by: string }).created_by)).toEqual([
      'base',
      'test commit',
    ]);
  });

  it.skipIf(registryMissing() !== undefined)(
    'pushes to a registry, mounting the source layers from the repository that has them',
    async () => {
      const registry = await startRegistry();
      try {
        const layout = new LayoutStore(path.join(tmp, 'layout'));
        const base = await sourceImage(layout);
        const remote = new RegistryStore({ host: registry.host });
        await remote.putBlob('team/base', layerBlob(base));
        const { lower, upper, since } = fixture(BASE, (u) => fs.rmSync(at(u, 'etc/hosts')));
        const layer = await writeLayer(
          upper,
          await diffRoots(lower, upper, { since }),
          path.join(tmp, 'l.tgz'),
        );
        // Gone from the source: the append can only succeed by mounting it in the registry.
        fs.rmSync(layout.blobPath(base.digest));
        const result = await appendLayer({
          from: layout,
          fromRepository: 'example.org/base',
          reference: '1',
          architecture: 'amd64',
          to: remote,
          toRepository: 'team/built',
          tag: 'saved',
          mountFrom: 'team/base',
          layer: layerBlob(layer),
          createdBy: 'test commit',
        });
        const pulled = await resolveImage(remote, 'team/built', 'saved', 'amd64');
        expect(pulled.digest).toBe(result.digest);
        expect(pulled.manifest.layers.map((l) => l.digest)).toEqual([base.digest, layer.digest]);
        expect(await remote.hasBlob('team/built', layer.digest)).toBe(true);
      } finally {
        await registry.stop();
      }
    },
    30_000,
  );
});
