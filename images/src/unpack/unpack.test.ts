import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import tar from 'tar-stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LayerError, applyLayer, finishRoot, newApplyState, unpackChain, type LayerSource } from './index.js';

type Entry = {
  name: string;
  type: string;
  body?: string;
  mode?: number;
  uid?: number;
  gid?: number;
  linkname?: string;
  devmajor?: number;
  devminor?: number;
};

const file = (name: string, body = name, mode = 0o644): Entry => ({ name, type: 'file', body, mode });
const dir = (name: string, mode = 0o755): Entry => ({ name, type: 'directory', mode });
const symlink = (name: string, linkname: string): Entry => ({ name, type: 'symlink', linkname });
const hardlink = (name: string, linkname: string): Entry => ({ name, type: 'link', linkname });

async function tarOf(entries: Entry[], gzip = false): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const done = (async () => {
    for await (const c of pack) chunks.push(c as Buffer);
  })();
  for (const { body, ...h } of entries) {
    await new Promise<void>((resolve, reject) =>
      pack.entry(h as tar.Header, body ?? '', (e?: Error | null) => (e ? reject(e) : resolve())),
    );
  }
  pack.finalize();
  await done;
  const raw = Buffer.concat(chunks);
  return gzip ? zlib.gzipSync(raw) : raw;
}

let seq = 0;
async function layerOf(entries: Entry[], gzip = false): Promise<LayerSource> {
  const buf = await tarOf(entries, gzip);
  return { digest: `sha256:test${++seq}-${Date.now()}`, open: () => Readable.from([buf]) };
}

let tmp: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'unpack-'));
});
afterEach(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

const ls = (root: string, rel: string) => fs.readdirSync(path.join(root, rel)).sort();

describe('unpackChain', () => {
  it.each([false, true])('applies files, folders, modes, symlinks and hard links (gzip %s)', async (gzip) => {
    const layer = await layerOf(
      [
        dir('bin'),
        file('bin/busybox', 'BB', 0o755),
        symlink('bin/sh', '/bin/busybox'),
        hardlink('bin/bb2', 'bin/busybox'),
        dir('etc', 0o555),
        file('etc/os-release', 'ID=t\n', 0o444),
      ],
      gzip,
    );
    const { root } = await unpackChain(tmp, [layer]);
    expect(fs.readFileSync(path.join(root, 'bin/busybox'), 'utf8')).toBe('BB');
    expect(fs.statSync(path.join(root, 'bin/busybox')).mode & 0o777).toBe(0o755);
    expect(fs.readlinkSync(path.join(root, 'bin/sh'))).toBe('/bin/busybox');
    expect(fs.statSync(path.join(root, 'bin/bb2')).ino).toBe(fs.statSync(path.join(root, 'bin/busybox')).ino);
    expect(fs.statSync(path.join(root, 'etc')).mode & 0o777).toBe(0o555);
    expect(fs.statSync(path.join(root, 'etc/os-release')).mode & 0o777).toBe(0o444);
  });

  it.each([
    {
      what: '.wh.<name> removes a file of a lower layer',
      upper: [file('a/.wh.x', '')],
      expected: { a: ['y'] },
    },
    {
      what: '.wh.<name> removes a whole folder',
      upper: [file('.wh.a', '')],
      expected: { '.': ['b'] },
    },
    {
      what: 'an opaque folder hides lower content but keeps its own layer’s',
      upper: [dir('a'), file('a/new'), file('a/.wh..wh..opq', '')],
      expected: { a: ['new'] },
    },
    {
      what: 'a file replaces a lower folder',
      upper: [file('b', 'now a file')],
      expected: { '.': ['a', 'b'] },
    },
  ])('whiteouts: $what', async ({ upper, expected }) => {
    const lower = await layerOf([dir('a'), file('a/x'), file('a/y'), dir('b'), file('b/z')]);
    const { root } = await unpackChain(tmp, [lower, await layerOf(upper, true)]);
    for (const [rel, names] of Object.entries(expected)) expect(ls(root, rel)).toEqual(names);
  });

  it.each([
    { what: 'absolute path', entries: [file('/etc/passwd')], cause: /absolute path/ },
    { what: '../ escape', entries: [file('a/../../escaped')], cause: /escapes the root/ },
    {
      what: 'character device',
      entries: [{ name: 'dev/null', type: 'character-device' as const, devmajor: 1, devminor: 3 }],
      cause: /character-device/,
    },
    {
      what: 'block device',
      entries: [{ name: 'dev/sda', type: 'block-device' as const, devmajor: 8, devminor: 0 }],
      cause: /block-device/,
    },
    { what: 'fifo', entries: [{ name: 'p', type: 'fifo' as const }], cause: /fifo/ },
    {
      what: 'symlink pointing out',
      entries: [symlink('a/up', '../../etc')],
      cause: /points outside the root/,
    },
    {
      what: 'absolute symlink climbing out',
      entries: [symlink('up', '/../../etc')],
      cause: /points outside the root/,
    },
    { what: 'hard link out through ..', entries: [hardlink('h', '../outside')], cause: /escapes the root/ },
    {
      what: 'hard link to an absolute path',
      entries: [hardlink('h', '/etc/passwd')],
      cause: /absolute path/,
    },
    { what: 'whiteout escaping', entries: [file('../.wh.x', '')], cause: /escapes the root/ },
  ])('refuses a hostile layer: $what', async ({ entries, cause }) => {
    const outside = path.join(tmp, 'outside');
    fs.writeFileSync(outside, 'keep');
    const layer = await layerOf(entries as Entry[]);
    const err = await unpackChain(path.join(tmp, 'cache'), [layer]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LayerError);
    expect((err as Error).message).toContain(`layer ${layer.digest}: entry "${entries[0]!.name}"`);
    expect((err as Error).message).toMatch(cause);
    expect(fs.readFileSync(outside, 'utf8')).toBe('keep');
    // Nothing is left in the cache: not a result, not a temporary folder.
    expect(fs.readdirSync(path.join(tmp, 'cache'))).toEqual([]);
  });

  it('writes through a symlink only inside the root (an absolute target is rooted at the image)', async () => {
    const hostEtc = path.join(tmp, 'host');
    fs.mkdirSync(hostEtc);
    const layer = await layerOf([
      dir('real'),
      symlink('etc', '/real'),
      file('etc/hosts', 'in image'),
      symlink('lib', hostEtc),
      file('lib/x', 'x'),
    ]);
    const { root } = await unpackChain(path.join(tmp, 'cache'), [layer]);
    expect(fs.readFileSync(path.join(root, 'real/hosts'), 'utf8')).toBe('in image');
    // The absolute target names a host folder, but inside the image it is <root><hostEtc>.
    expect(fs.readdirSync(hostEtc)).toEqual([]);
    expect(fs.readFileSync(path.join(root, hostEtc, 'x'), 'utf8')).toBe('x');
  });

  it('refuses writing through a relative symlink that leaves the root, naming the entry', async () => {
    // A layer cannot create such a link; a root changed behind the unpacker's back can hold one.
    // The link leads from <tmp>/jail/root/a to <tmp>, a folder of this test alone (not a shared /tmp).
    const root = path.join(tmp, 'jail', 'root');
    fs.mkdirSync(path.join(root, 'a'), { recursive: true });
    fs.symlinkSync('../../..', path.join(root, 'a/out'));
    const layer = await layerOf([file('a/out/x')]);
    const err = await applyLayer(root, layer.digest, await layer.open(), newApplyState()).catch(
      (e: unknown) => e,
    );
    expect((err as Error).message).toMatch(
      /entry "a\/out\/x": a symlink on the path points outside the root/,
    );
    expect(fs.existsSync(path.join(tmp, 'x'))).toBe(false);
  });

  it('refuses a corrupt layer, naming it', async () => {
    const good = await tarOf([file('a', 'x'.repeat(2000))], true);
    const layer: LayerSource = {
      digest: 'sha256:corrupt',
      open: () => Readable.from([good.subarray(0, good.length - 40)]),
    };
    await expect(unpackChain(tmp, [layer])).rejects.toThrow(/layer sha256:corrupt: corrupt layer/);
  });

  it('unpacks a chain once for concurrent callers and reuses it later', async () => {
    let opened = 0;
    const buf = await tarOf([file('only')], true);
    const layer: LayerSource = {
      digest: 'sha256:shared',
      open: () => {
        opened++;
        return Readable.from([buf]);
      },
    };
    const results = await Promise.all([unpackChain(tmp, [layer]), unpackChain(tmp, [layer])]);
    expect(results[0].root).toBe(results[1].root);
    expect(opened).toBe(1);
    expect((await unpackChain(tmp, [layer])).root).toBe(results[0].root);
    expect(opened).toBe(1);
    expect(fs.readdirSync(tmp)).toEqual([path.basename(results[0].dir)]);
  });
});

describe('ownership and modes', () => {
  it('records ownership it may not set, and forgets it for whited-out paths', async () => {
    const root = path.join(tmp, 'root');
    fs.mkdirSync(root);
    const state = newApplyState({ chown: false });
    const lower = await layerOf([
      { name: 'ro/', type: 'directory', mode: 0o555, uid: 1000, gid: 1000 },
      { name: 'ro/a', type: 'file', body: 'a', mode: 0o444, uid: 1000, gid: 1000 },
      { name: 'ro/c', type: 'file', body: 'c', mode: 0o444, uid: 1000, gid: 1001 },
      { name: 'gone/', type: 'directory', mode: 0o500, uid: 7, gid: 7 },
    ]);
    const upper = await layerOf([file('ro/b'), file('ro/.wh.a', ''), file('.wh.gone', '')]);
    for (const l of [lower, upper]) await applyLayer(root, l.digest, await l.open(), state);
    await finishRoot(root, state);
    expect(ls(root, 'ro')).toEqual(['b', 'c']);
    expect(fs.statSync(path.join(root, 'ro')).mode & 0o777).toBe(0o555);
    expect(state.owners).toEqual({ ro: [1000, 1000], 'ro/c': [1000, 1001] });
  });
});
