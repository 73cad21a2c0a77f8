// What differs between an image root (`lower`) and a writable copy of it (`upper`), as the entries
// of an OCI layer: an added or modified path, or a deleted one (a whiteout). Both trees are walked
// in step. A file counts as modified when its type, mode, size, mtime or symlink target differ;
// when those all match but its ctime says it was touched after the copy was made (`since`), its
// content is hashed to be sure. Ownership is not compared: a rootless copy is the platform user's
// on both sides. A deleted folder is one deletion; an added folder brings its whole subtree.
// Sockets, fifos and devices are not layer material and are skipped.
import { createHash } from 'node:crypto';
import { createReadStream, type BigIntStats } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';

export type EntryType = 'file' | 'directory' | 'symlink';

export interface RootChange {
  /** Relative to the root, `/`-separated, no leading slash. */
  path: string;
  kind: 'added' | 'modified' | 'deleted';
  /** The upper entry's type (the lower one's for a deletion). */
  type: EntryType;
}

export interface DiffOptions {
  /** ctime (ns since the epoch) when the copy was complete: look-alike files changed since (or in the same clock tick) are hashed. */
  since?: bigint;
}

function typeOf(st: BigIntStats): EntryType | undefined {
  if (st.isFile()) return 'file';
  if (st.isDirectory()) return 'directory';
  if (st.isSymbolicLink()) return 'symlink';
  return undefined;
}

async function entries(dir: string): Promise<string[]> {
  try {
    return (await fs.readdir(dir)).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

async function sameContent(a: string, b: string): Promise<boolean> {
  const hash = async (p: string) => {
    const h = createHash('sha256');
    await pipeline(createReadStream(p), h);
    return h.digest('hex');
  };
  return (await hash(a)) === (await hash(b));
}

async function differs(
  lowerPath: string,
  upperPath: string,
  lower: BigIntStats,
  upper: BigIntStats,
  type: EntryType,
  options: DiffOptions,
): Promise<boolean> {
  if ((lower.mode & 0o7777n) !== (upper.mode & 0o7777n)) return true;
  if (type === 'directory') return false;
  if (type === 'symlink') return (await fs.readlink(lowerPath)) !== (await fs.readlink(upperPath));
  if (lower.size !== upper.size || lower.mtimeNs !== upper.mtimeNs) return true;
  if (options.since !== undefined && upper.ctimeNs >= options.since) {
    return !(await sameContent(lowerPath, upperPath));
  }
  return false;
}

async function addTree(upper: string, rel: string, type: EntryType, out: RootChange[]): Promise<void> {
  out.push({ path: rel, kind: 'added', type });
  if (type !== 'directory') return;
  for (const name of await entries(path.join(upper, rel))) {
    const child = `${rel}/${name}`;
    const st = await fs.lstat(path.join(upper, child), { bigint: true });
    const t = typeOf(st);
    if (t) await addTree(upper, child, t, out);
  }
}

async function walk(
  lower: string,
  upper: string,
  rel: string,
  options: DiffOptions,
  out: RootChange[],
): Promise<void> {
  const lowerNames = await entries(path.join(lower, rel));
  const upperNames = await entries(path.join(upper, rel));
  const names = [...new Set([...lowerNames, ...upperNames])].sort();
  const upperSet = new Set(upperNames);
  const lowerSet = new Set(lowerNames);
  for (const name of names) {
    const child = rel ? `${rel}/${name}` : name;
    const l = lowerSet.has(name) ? await fs.lstat(path.join(lower, child), { bigint: true }) : undefined;
    const u = upperSet.has(name) ? await fs.lstat(path.join(upper, child), { bigint: true }) : undefined;
    const lt = l && typeOf(l);
    const ut = u && typeOf(u);
    if (!ut) {
      if (lt) out.push({ path: child, kind: 'deleted', type: lt });
      continue;
    }
    if (!lt) {
      await addTree(upper, child, ut, out);
      continue;
    }
    if (lt !== ut) {
      out.push({ path: child, kind: 'modified', type: ut });
      if (ut === 'directory') {
        for (const name of await entries(path.join(upper, child))) {
          const grand = `${child}/${name}`;
          const t = typeOf(await fs.lstat(path.join(upper, grand), { bigint: true }));
          if (t) await addTree(upper, grand, t, out);
        }
      }
      continue;
    }
    if (await differs(path.join(lower, child), path.join(upper, child), l, u, ut, options)) {
      out.push({ path: child, kind: 'modified', type: ut });
    }
    if (ut === 'directory') await walk(lower, upper, child, options, out);
  }
}

/** The changes from `lower` to `upper`, sorted by path (a folder before what is inside it). */
export async function diffRoots(
  lower: string,
  upper: string,
  options: DiffOptions = {},
): Promise<RootChange[]> {
  const out: RootChange[] = [];
  await walk(lower, upper, '', options, out);
  return out.sort((a, b) => comparePaths(a.path, b.path));
}

/** Component-wise order, so `a/b` sorts right after `a` and before `a.txt`. */
export function comparePaths(a: string, b: string): number {
  const pa = a.split('/');
  const pb = b.split('/');
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    if (pa[i] !== pb[i]) return pa[i]! < pb[i]! ? -1 : 1;
  }
  return pa.length - pb.length;
}
