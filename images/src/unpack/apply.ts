// Applies one layer (a tar stream, gzip or plain, told apart by its magic bytes) onto a root
// filesystem folder, with OCI whiteouts. Runs without privileges: ownership that cannot be set is
// recorded in `owners` for the runtime instead of failing the unpack.
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import tar from 'tar-stream';
import { UnsafeEntryError, entryComponents, resolveDir, symlinkTargetInside } from './paths.js';

const WHITEOUT = '.wh.';
const OPAQUE = '.wh..wh..opq';

export class LayerError extends Error {
  constructor(
    readonly layer: string,
    readonly entry: string | undefined,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`layer ${layer}${entry !== undefined ? `: entry "${entry}"` : ''}: ${message}`, options);
    this.name = 'LayerError';
  }
}

/** What applying layers leaves beside the files: ownership and folder modes to apply last. */
export interface ApplyState {
  /** `path` → [uid, gid] where lchown was refused (rootless unpack). */
  owners: Record<string, [number, number]>;
  /** Folder modes, applied after the last layer so later layers can still write into them. */
  dirModes: Map<string, number>;
  /** Whether to lchown entries (only root can give files away); recorded in `owners` otherwise. */
  chown: boolean;
}

export function newApplyState(opts: { chown?: boolean } = {}): ApplyState {
  return { owners: {}, dirModes: new Map(), chown: opts.chown ?? process.getuid?.() === 0 };
}

/** Decompresses a layer when it starts with the gzip magic; plain tar passes through. */
async function decompressed(input: Readable): Promise<Readable> {
  const it = input[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const first = await it.next();
  const rest = Readable.from(
    (async function* () {
      if (!first.done) yield first.value;
      for (;;) {
        const n = await it.next();
        if (n.done) return;
        yield n.value;
      }
    })(),
  );
  const head = first.done ? Buffer.alloc(0) : first.value;
  if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) return rest.pipe(zlib.createGunzip());
  return rest;
}

async function removeAll(p: string) {
  await fs.rm(p, { recursive: true, force: true });
}

/** Drops what `state` remembers of a removed path and everything under it. */
function forget(state: ApplyState, rel: string) {
  const under = `${rel}/`;
  for (const k of Object.keys(state.owners)) if (k === rel || k.startsWith(under)) delete state.owners[k];
  for (const k of state.dirModes.keys()) if (k === rel || k.startsWith(under)) state.dirModes.delete(k);
}

async function lstatOrUndefined(p: string) {
  return fs.lstat(p).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return undefined;
    throw e;
  });
}

export async function applyLayer(
  root: string,
  layer: string,
  input: Readable,
  state: ApplyState,
): Promise<void> {
  const extract = tar.extract();
  const source = await decompressed(input).catch((e: unknown) => {
    throw new LayerError(layer, undefined, `cannot read: ${(e as Error).message}`, { cause: e });
  });
  const feeding = pipeline(source, extract);
  // Paths this layer created: an opaque marker hides only what lower layers put in the folder.
  const created = new Set<string>();
  try {
    for await (const entry of extract) {
      const h = entry.header;
      try {
        await applyEntry(root, h, entry as unknown as Readable, state, created);
      } catch (e) {
        entry.resume();
        if (e instanceof UnsafeEntryError) throw new LayerError(layer, h.name, e.message, { cause: e });
        throw new LayerError(layer, h.name, (e as Error).message, { cause: e });
      }
      entry.resume();
    }
    await feeding;
  } catch (e) {
    extract.destroy();
    source.destroy();
    await feeding.catch(() => undefined);
    if (e instanceof LayerError) throw e;
    throw new LayerError(layer, undefined, `corrupt layer: ${(e as Error).message}`, { cause: e });
  }
}

async function applyEntry(
  root: string,
  h: tar.Header,
  body: Readable,
  state: ApplyState,
  created: Set<string>,
): Promise<void> {
  const parts = entryComponents(h.name);
  if (parts.length === 0) return; // the root folder itself
  const base = parts[parts.length - 1]!;
  const dirParts = parts.slice(0, -1);
  if (h.type === 'character-device' || h.type === 'block-device' || h.type === 'fifo') {
    throw new UnsafeEntryError(`${h.type} entries are not allowed`);
  }
  const dir = await resolveDir(root, dirParts);
  const rel = path.relative(root, path.join(dir, base));

  if (base === OPAQUE) {
    const parentRel = path.relative(root, dir);
    for (const child of await fs.readdir(dir)) {
      const childRel = path.join(parentRel, child);
      if (created.has(childRel)) continue;
      await removeAll(path.join(dir, child));
      forget(state, childRel);
    }
    return;
  }
  if (base.startsWith(WHITEOUT)) {
    const hidden = base.slice(WHITEOUT.length);
    if (hidden === '' || hidden === '.' || hidden === '..' || hidden.includes('/')) {
      throw new UnsafeEntryError('malformed whiteout');
    }
    await removeAll(path.join(dir, hidden));
    forget(state, path.relative(root, path.join(dir, hidden)));
    return;
  }

  const target = path.join(dir, base);
  const existing = await lstatOrUndefined(target);
  const mode = (h.mode ?? 0o644) & 0o7777;
  created.add(rel);

  switch (h.type as string) {
    case 'directory': {
      if (existing && !existing.isDirectory()) {
        await removeAll(target);
        forget(state, rel);
      }
      if (!existing || !existing.isDirectory()) await fs.mkdir(target, { mode: 0o755 });
      // Owner-writable until the last layer is on; the image's mode is applied then.
      await fs.chmod(target, mode | 0o700);
      state.dirModes.set(rel, mode);
      break;
    }
    case 'file':
    case 'contiguous-file': {
      if (existing) {
        await removeAll(target);
        forget(state, rel);
      }
      // O_EXCL: never writes through a symlink that might appear at the final component.
      await pipeline(body, createWriteStream(target, { flags: 'wx', mode: 0o600 }));
      await fs.chmod(target, mode);
      break;
    }
    case 'symlink': {
      const linkname = h.linkname ?? '';
      symlinkTargetInside(dirParts, linkname);
      if (existing) await removeAll(target);
      await fs.symlink(linkname, target);
      break;
    }
    case 'link': {
      const linkParts = entryComponents(h.linkname ?? '');
      if (linkParts.length === 0) throw new UnsafeEntryError('hard link to the root');
      const linkDir = await resolveDir(root, linkParts.slice(0, -1), false);
      const source = path.join(linkDir, linkParts[linkParts.length - 1]!);
      const st = await lstatOrUndefined(source);
      if (!st) throw new UnsafeEntryError(`hard link target "${h.linkname}" does not exist`);
      if (st.isDirectory()) throw new UnsafeEntryError(`hard link target "${h.linkname}" is a directory`);
      if (existing) await removeAll(target);
      await fs.link(source, target);
      return; // shares the target's inode: mode and owner are the target's
    }
    case 'pax-header':
    case 'pax-global-header':
    case 'gnu-long-path':
    case 'gnu-long-link-path':
      return;
    default:
      throw new UnsafeEntryError(`unsupported entry type ${h.type ?? 'unknown'}`);
  }

  const uid = h.uid ?? 0;
  const gid = h.gid ?? 0;
  let owned = false;
  if (state.chown) {
    owned = await fs.lchown(target, uid, gid).then(
      () => true,
      () => false,
    );
  }
  if (!owned && (uid !== 0 || gid !== 0 || state.chown)) state.owners[rel] = [uid, gid];
  else delete state.owners[rel];
  if (h.mtime && h.type !== 'symlink') await fs.utimes(target, h.mtime, h.mtime).catch(() => undefined);
}

/** Applies the folder modes the layers asked for, deepest first. */
export async function finishRoot(root: string, state: ApplyState): Promise<void> {
  const dirs = [...state.dirModes].sort((a, b) => b[0].length - a[0].length);
  for (const [rel, mode] of dirs) {
    const p = path.join(root, rel);
    const st = await lstatOrUndefined(p);
    if (st?.isDirectory()) await fs.chmod(p, mode);
  }
}
