// One gzip tar layer from a list of changes of a root folder, streamed to a file while both of
// its digests are computed: the blob digest (compressed bytes, what manifests name) and the diffID
// (uncompressed tar, what the config's rootfs lists). The tar is deterministic: entries in path
// order, every changed path's parent folders included so the layer stands on its own, deletions
// as `.wh.<name>` whiteouts, files sharing an inode inside the layer written once and then as hard
// links. Modes and mtimes are the folder's; owners come from `ownerOf`.
import { createHash, type Hash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import tar from 'tar-stream';
import { comparePaths, type RootChange } from './diff.js';

export interface LayerFile {
  /** sha256 of the gzip bytes. */
  digest: string;
  /** sha256 of the uncompressed tar. */
  diffId: string;
  /** Size of the gzip bytes. */
  size: number;
  path: string;
}

/** uid and gid a path (relative to the root) gets in the layer. */
export type OwnerOf = (rel: string, stat: { uid: number; gid: number }) => [number, number];

const WHITEOUT = '.wh.';

class Hasher extends Transform {
  readonly hash: Hash = createHash('sha256');
  bytes = 0;
  override _transform(chunk: Buffer, _enc: BufferEncoding, callback: TransformCallback): void {
    this.hash.update(chunk);
    this.bytes += chunk.length;
    callback(null, chunk);
  }
}

type Planned = { path: string; whiteout?: true };

/** The layer's entries: changes, whiteouts and the parent folders of both, in tar order. */
export function layerEntries(changes: RootChange[]): Planned[] {
  const planned = new Map<string, Planned>();
  const addParents = (rel: string) => {
    const parts = rel.split('/');
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join('/');
      if (!planned.has(dir)) planned.set(dir, { path: dir });
    }
  };
  for (const change of changes) {
    addParents(change.path);
    if (change.kind === 'deleted') {
      const dir = path.posix.dirname(change.path);
      const name = `${WHITEOUT}${path.posix.basename(change.path)}`;
      const wh = dir === '.' ? name : `${dir}/${name}`;
      planned.set(wh, { path: wh, whiteout: true });
    } else planned.set(change.path, { path: change.path });
  }
  return [...planned.values()].sort((a, b) => comparePaths(a.path, b.path));
}

function addEntry(
  pack: tar.Pack,
  header: Partial<tar.Header> & { name: string },
  body?: string,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const callback = (error?: Error | null) => (error ? reject(error) : resolve());
    if (!body) {
      pack.entry(header, '', callback);
      return;
    }
    const sink = pack.entry(header, callback);
    pipeline(createReadStream(body), sink).catch(reject);
  });
}

async function writeEntries(root: string, planned: Planned[], ownerOf: OwnerOf, pack: tar.Pack) {
  const inodes = new Map<string, string>();
  for (const entry of planned) {
    if (entry.whiteout) {
      await addEntry(pack, {
        name: entry.path,
        type: 'file',
        mode: 0o644,
        size: 0,
        uid: 0,
        gid: 0,
        mtime: new Date(0),
      });
      continue;
    }
    const host = path.join(root, entry.path);
    const st = await fs.lstat(host);
    const [uid, gid] = ownerOf(entry.path, st);
    const base = { name: entry.path, mode: st.mode & 0o7777, uid, gid, mtime: st.mtime };
    if (st.isDirectory()) {
      await addEntry(pack, { ...base, type: 'directory' });
    } else if (st.isSymbolicLink()) {
      await addEntry(pack, { ...base, type: 'symlink', linkname: await fs.readlink(host) });
    } else if (st.isFile()) {
      const key = `${st.dev}:${st.ino}`;
      const first = st.nlink > 1 ? inodes.get(key) : undefined;
      if (first !== undefined) {
        await addEntry(pack, { ...base, type: 'link', linkname: first });
      } else {
        if (st.nlink > 1) inodes.set(key, entry.path);
        await addEntry(pack, { ...base, type: 'file', size: st.size }, host);
      }
    }
  }
  pack.finalize();
}

/** Writes the layer for `changes` of `root` to `file`. */
export async function writeLayer(
  root: string,
  changes: RootChange[],
  file: string,
  ownerOf: OwnerOf = (_rel, st) => [st.uid, st.gid],
): Promise<LayerFile> {
  const pack = tar.pack();
  const tarHash = new Hasher();
  const gzHash = new Hasher();
  const writing = writeEntries(root, layerEntries(changes), ownerOf, pack).catch((error: unknown) => {
    pack.destroy(error as Error);
    throw error;
  });
  try {
    await Promise.all([
      pipeline(pack, tarHash, zlib.createGzip(), gzHash, createWriteStream(file, { flags: 'wx' })),
      writing,
    ]);
  } catch (error) {
    await fs.rm(file, { force: true });
    throw new Error(`writing the layer of ${root} failed: ${(error as Error).message}`, { cause: error });
  }
  return {
    digest: `sha256:${gzHash.hash.digest('hex')}`,
    diffId: `sha256:${tarHash.hash.digest('hex')}`,
    size: gzHash.bytes,
    path: file,
  };
}
