// Root filesystems cached per layer chain: `<cacheDir>/<chain id>/rootfs`, where the chain id
// hashes the ordered layer digests (as OCI's ChainID does for diff ids). A chain is unpacked into a
// temporary folder and renamed into place, so concurrent unpacks of one chain, in this process or
// another, leave exactly one result; the folder is then only read (steps mount it read-only).
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { applyLayer, finishRoot, newApplyState } from './apply.js';

export interface LayerSource {
  /** `sha256:<hex>` of the blob, as in the manifest. */
  digest: string;
  open(): Promise<Readable> | Readable;
}

export interface UnpackedRoot {
  /** The chain's folder. */
  dir: string;
  /** The root filesystem. */
  root: string;
  /** Ownership the unpack could not set (non-root): path → [uid, gid]. */
  owners: Record<string, [number, number]>;
}

export function chainId(digests: string[]): string {
  return createHash('sha256').update(digests.join('\n')).digest('hex');
}

const inflight = new Map<string, Promise<UnpackedRoot>>();

async function readCached(dir: string): Promise<UnpackedRoot | undefined> {
  try {
    const owners = JSON.parse(
      await fs.readFile(path.join(dir, 'owners.json'), 'utf8'),
    ) as UnpackedRoot['owners'];
    return { dir, root: path.join(dir, 'rootfs'), owners };
  } catch {
    return undefined;
  }
}

/** The root filesystem of `layers` applied in order, unpacked once per chain. */
export function unpackChain(cacheDir: string, layers: LayerSource[]): Promise<UnpackedRoot> {
  const id = chainId(layers.map((l) => l.digest));
  const dir = path.join(cacheDir, id);
  let p = inflight.get(dir);
  if (!p) {
    p = unpackOnce(cacheDir, dir, layers).finally(() => inflight.delete(dir));
    inflight.set(dir, p);
  }
  return p;
}

async function unpackOnce(cacheDir: string, dir: string, layers: LayerSource[]): Promise<UnpackedRoot> {
  const cached = await readCached(dir);
  if (cached) return cached;
  await fs.mkdir(cacheDir, { recursive: true });
  const tmp = path.join(
    cacheDir,
    `.tmp-${path.basename(dir).slice(0, 12)}-${randomBytes(6).toString('hex')}`,
  );
  const root = path.join(tmp, 'rootfs');
  await fs.mkdir(root, { recursive: true, mode: 0o755 });
  try {
    const state = newApplyState();
    for (const layer of layers) await applyLayer(root, layer.digest, await layer.open(), state);
    await finishRoot(root, state);
    await fs.writeFile(path.join(tmp, 'owners.json'), JSON.stringify(state.owners));
    await fs.rename(tmp, dir).catch(async (e: NodeJS.ErrnoException) => {
      // Another unpacker finished the same chain first: theirs is kept.
      if (e.code !== 'ENOTEMPTY' && e.code !== 'EEXIST') throw e;
    });
  } finally {
    await removeTree(tmp);
  }
  const done = await readCached(dir);
  if (!done) throw new Error(`unpacked chain ${path.basename(dir)} is missing after rename`);
  return done;
}

/** Removes a tree even where the image made folders read-only. */
async function removeTree(p: string) {
  try {
    await fs.rm(p, { recursive: true, force: true });
  } catch {
    const walk = async (d: string): Promise<void> => {
      await fs.chmod(d, 0o700).catch(() => undefined);
      for (const e of await fs.readdir(d, { withFileTypes: true }).catch(() => [])) {
        if (e.isDirectory()) await walk(path.join(d, e.name));
      }
    };
    await walk(p);
    await fs.rm(p, { recursive: true, force: true });
  }
}
