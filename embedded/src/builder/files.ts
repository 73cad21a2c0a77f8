// Files of a container's root folder by their path inside the container. Paths are taken apart
// with the unpacker's rules (no `..`) and their folders walked one component at a time, symlinks
// followed with chroot semantics, so nothing outside the root folder is ever read or written.
// Every look at the folder happens with the container paused (`frozen`), so what was checked is
// what is used. An upload is streamed (unpaused) into a scratch file opened beside its target and
// then renamed over it (paused again, after checking the folder and the scratch file are still
// the ones opened): a symlink at the target is replaced, never written through.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { BuilderError, UnsafeEntryError, UploadLimit, entryComponents, resolveDir } from '@sandflow/images';

export type Frozen = <T>(fn: () => Promise<T>) => Promise<T>;

/** The components of `p` under the root: absolute, or relative to `workdir`. */
export function containerComponents(p: string, workdir: string): string[] {
  try {
    // Checked before joining: a join would fold `..` away silently.
    const own = entryComponents(p.replace(/^\/+/, ''));
    if (p.startsWith('/')) return own;
    return [...entryComponents((workdir || '/').replace(/^\/+/, '')), ...own];
  } catch (error) {
    throw new BuilderError('BAD_PATH', `"${p}" leaves the container`, { cause: error });
  }
}

/** The host folder holding `parts`' last component, or undefined when a folder on the way is missing. */
async function hostDir(root: string, parts: string[], p: string, create: boolean) {
  try {
    return await resolveDir(root, parts.slice(0, -1), create);
  } catch (error) {
    if (error instanceof UnsafeEntryError && !create && /does not exist/.test(error.message))
      return undefined;
    if (error instanceof UnsafeEntryError)
      throw new BuilderError('BAD_PATH', `"${p}": ${error.message}`, { cause: error });
    throw error;
  }
}

export async function existsIn(root: string, workdir: string, p: string, frozen: Frozen): Promise<boolean> {
  const parts = containerComponents(p, workdir);
  if (parts.length === 0) return true;
  return frozen(async () => {
    const dir = await hostDir(root, parts, p, false);
    if (!dir) return false;
    return fs.lstat(path.join(dir, parts.at(-1)!)).then(
      () => true,
      () => false,
    );
  });
}

async function refuseFolder(target: string, p: string) {
  const existing = await fs.lstat(target).catch(() => undefined);
  if (existing?.isDirectory()) throw new BuilderError('BAD_PATH', `"${p}" is a folder`);
}

export async function writeInto(
  root: string,
  workdir: string,
  p: string,
  content: Readable,
  frozen: Frozen,
  maxBytes?: number,
): Promise<{ size: number }> {
  const parts = containerComponents(p, workdir);
  if (parts.length === 0) throw new BuilderError('BAD_PATH', `"${p}" is the root folder, not a file`);
  const name = parts.at(-1)!;
  const scratchName = `.sandflow-upload-${randomBytes(8).toString('hex')}`;
  const opened = await frozen(async () => {
    const dir = (await hostDir(root, parts, p, true))!;
    await refuseFolder(path.join(dir, name), p);
    const handle = await fs.open(path.join(dir, scratchName), 'wx', 0o644);
    return { dir, handle, ino: (await handle.stat()).ino };
  });
  const limit = new UploadLimit(maxBytes, `the upload to ${p}`);
  const discard = () =>
    frozen(async () => {
      const dir = await hostDir(root, parts, p, false).catch(() => undefined);
      if (dir === opened.dir) await fs.rm(path.join(dir, scratchName), { force: true });
    });
  try {
    await pipeline(content, limit, opened.handle.createWriteStream());
  } catch (error) {
    await opened.handle.close().catch(() => undefined);
    await discard();
    if (error instanceof BuilderError) throw error;
    throw new Error(`writing ${p} into the container failed: ${(error as Error).message}`, { cause: error });
  }
  await frozen(async () => {
    const dir = await hostDir(root, parts, p, false).catch(() => undefined);
    const scratch =
      dir === opened.dir ? await fs.lstat(path.join(dir, scratchName)).catch(() => undefined) : undefined;
    if (!dir || !scratch?.isFile() || scratch.ino !== opened.ino) {
      if (dir === opened.dir) await fs.rm(path.join(dir, scratchName), { force: true });
      throw new BuilderError('BAD_PATH', `"${p}": its folder changed in the container during the upload`);
    }
    await refuseFolder(path.join(dir, name), p).catch(async (error: unknown) => {
      await fs.rm(path.join(dir, scratchName), { force: true });
      throw error;
    });
    await fs.rename(path.join(dir, scratchName), path.join(dir, name));
  });
  return { size: limit.size };
}
