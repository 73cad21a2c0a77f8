// Files in and out of a builder Pod, as tar streams through exec. In: an upload is first spooled to
// a local file (refused over its limit before a byte is sent, with the embedded builder's error),
// then sent as a one-entry tar that the container extracts beside its target and renames over it
// (uploadScript), so a failed upload leaves nothing and a symlink at the target is replaced, never
// written through. Out: a commit's `tar c` is extracted into a local folder (extractInto) that
// accepts only the entries asked for, each under folders it made itself: what a container sends
// cannot reach outside that folder.
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { BuilderError, UploadLimit, entryComponents } from '@sandflow/images';
import tar from 'tar-stream';
import { messageOf } from './error-message.js';
import type { RunScript } from './exec.js';
import { BUSYBOX } from './snapshot.js';

/** Where an upload goes: its folder (absolute, or relative to the workdir) and its file name. */
export function uploadTarget(p: string): { dir: string; name: string } {
  let parts: string[];
  try {
    parts = entryComponents(p.replace(/^\/+/, ''));
  } catch (error) {
    throw new BuilderError('BAD_PATH', `"${p}" leaves the container`, { cause: error });
  }
  if (parts.length === 0) throw new BuilderError('BAD_PATH', `"${p}" is the root folder, not a file`);
  const folder = parts.slice(0, -1).join('/');
  return { dir: p.startsWith('/') ? `/${folder}` : folder || '.', name: parts.at(-1)! };
}

/** `p` as the container's shell should name it (absolute, or relative to the workdir). */
export function containerPath(p: string): string {
  let parts: string[];
  try {
    parts = entryComponents(p.replace(/^\/+/, ''));
  } catch (error) {
    throw new BuilderError('BAD_PATH', `"${p}" leaves the container`, { cause: error });
  }
  return p.startsWith('/') ? `/${parts.join('/')}` : parts.join('/') || '.';
}

export const EXIT_IS_FOLDER = 3;
export const EXIT_NO_FOLDER = 4;

/**
 * `sh -c` script, arguments: folder, name, scratch name. Reads a tar holding only the scratch
 * file from stdin into the folder (made with its parents), then renames it over the name.
 */
export const UPLOAD_SCRIPT = [
  'd=$1; n=$2; s=$3',
  `if [ -d "$d/$n" ] && [ ! -L "$d/$n" ]; then echo "$d/$n is a folder" >&2; exit ${EXIT_IS_FOLDER}; fi`,
  `${BUSYBOX} mkdir -p -- "$d" || exit ${EXIT_NO_FOLDER}`,
  `trap '${BUSYBOX} rm -f -- "$d/$s"' EXIT`,
  `${BUSYBOX} tar x -o -C "$d" -f - || exit 1`,
  `${BUSYBOX} mv -f -- "$d/$s" "$d/$n" || exit 1`,
  'trap - EXIT',
].join('\n');

export const scratchName = () => `.sandflow-upload-${randomBytes(8).toString('hex')}`;

/** Writes `content` to `file`, failing with TOO_LARGE past `maxBytes` (the file is then removed). */
export async function spool(
  content: Readable,
  file: string,
  subject: string,
  maxBytes?: number,
): Promise<{ size: number }> {
  const limit = new UploadLimit(maxBytes, subject);
  try {
    await pipeline(content, limit, createWriteStream(file, { flags: 'wx', mode: 0o600 }));
  } catch (error) {
    await fs.rm(file, { force: true });
    if (error instanceof BuilderError) throw error;
    throw new Error(`reading ${subject} failed: ${(error as Error).message}`, { cause: error });
  }
  return { size: limit.size };
}

/** A tar of one file entry `name` with the content of `file` (`size` bytes). */
export function singleFileTar(file: string, size: number, name: string): Readable {
  const pack = tar.pack();
  const entry = pack.entry({ name, size, mode: 0o644, mtime: new Date(), type: 'file' }, (error) => {
    if (error) pack.destroy(error);
    else pack.finalize();
  });
  pipeline(createReadStream(file), entry).catch((error: unknown) => pack.destroy(error as Error));
  return pack as unknown as Readable;
}

/** Whether `p` (absolute, or relative to the workdir) is there in builder `id`'s container. */
export async function pathExists(run: RunScript, id: string, p: string): Promise<boolean> {
  const where = containerPath(p);
  const result = await run('[ -e "$1" ] || [ -L "$1" ]', [where]).catch((error: unknown) => {
    throw new Error(`builder ${id}: looking for ${p} failed: ${messageOf(error)}`, { cause: error });
  });
  if (result.exitCode > 1)
    throw new Error(
      `builder ${id}: looking for ${p} failed (exit ${result.exitCode}): ${result.stderr.trim()}`,
    );
  return result.exitCode === 0;
}

/** Writes `content` to `p` in builder `id`'s container: spooled into `tmpDir`, then UPLOAD_SCRIPT. */
export async function writeUpload(
  run: RunScript,
  id: string,
  p: string,
  content: Readable,
  options: { tmpDir?: string | undefined; maxBytes?: number | undefined },
): Promise<{ size: number }> {
  const { dir, name } = uploadTarget(p);
  const spooled = path.join(options.tmpDir ?? os.tmpdir(), `sandflow-upload-${id}-${scratchName()}`);
  const { size } = await spool(content, spooled, `the upload to ${p}`, options.maxBytes);
  try {
    const scratch = scratchName();
    const result = await run(UPLOAD_SCRIPT, [dir, name, scratch], {
      stdin: singleFileTar(spooled, size, scratch),
    }).catch((error: unknown) => {
      throw new Error(`builder ${id}: sending ${p} failed: ${messageOf(error)}`, { cause: error });
    });
    const why = result.stderr.trim();
    if (result.exitCode === EXIT_IS_FOLDER) throw new BuilderError('BAD_PATH', `"${p}" is a folder`);
    if (result.exitCode === EXIT_NO_FOLDER)
      throw new BuilderError('BAD_PATH', `"${p}": its folder cannot be made: ${why}`);
    if (result.exitCode !== 0)
      throw /denied|read-only/i.test(why)
        ? new BuilderError('BAD_PATH', `"${p}": ${why}`)
        : new Error(`builder ${id}: writing ${p} failed (exit ${result.exitCode}): ${why}`);
    return { size };
  } finally {
    await fs.rm(spooled, { force: true });
  }
}

export interface Extracted {
  /** Owner of every entry, by path relative to the root (what the layer records). */
  owners: Map<string, [number, number]>;
  /** Paths extracted. */
  seen: Set<string>;
}

const entryName = (name: string) => name.replace(/^(\.\/|\/)+/, '').replace(/\/+$/, '');

/**
 * Consumes the tar `extract` receives into `root`: only names in `wanted`, files, folders,
 * symlinks and hard links to files already extracted; a name's folders must be folders this
 * extraction made. Modes and mtimes are the tar's (folders' are set last, deepest first).
 */
export async function extractInto(
  extract: tar.Extract,
  root: string,
  wanted: Set<string>,
): Promise<Extracted> {
  const owners = new Map<string, [number, number]>();
  const seen = new Set<string>();
  const dirs = new Set<string>(['']);
  const files = new Set<string>();
  const folderTimes: { rel: string; mode: number; mtime: Date }[] = [];
  for await (const entry of extract) {
    const h = entry.header;
    const rel = entryName(h.name);
    const refuse = (why: string): never => {
      throw new Error(`the container's tar has ${JSON.stringify(h.name)}: ${why}`);
    };
    if (!wanted.has(rel)) refuse('not a path of the commit');
    if (seen.has(rel)) refuse('twice');
    const parent = path.posix.dirname(rel) === '.' ? '' : path.posix.dirname(rel);
    if (!dirs.has(parent)) refuse('its folder is not a folder of this tar (changed during the save)');
    const host = path.join(root, rel);
    switch (h.type) {
      case 'directory':
        await fs.mkdir(host, { mode: 0o700 });
        dirs.add(rel);
        folderTimes.push({ rel, mode: h.mode & 0o7777, mtime: h.mtime });
        entry.resume();
        break;
      case 'file':
      case 'contiguous-file':
        await pipeline(entry, createWriteStream(host, { flags: 'wx', mode: 0o600 }));
        await fs.chmod(host, h.mode & 0o7777);
        await fs.utimes(host, h.mtime, h.mtime);
        files.add(rel);
        break;
      case 'symlink':
        await fs.symlink(h.linkname, host);
        await fs.lutimes(host, h.mtime, h.mtime);
        entry.resume();
        break;
      case 'link': {
        const target = entryName(h.linkname);
        if (!files.has(target)) refuse(`a hard link to ${h.linkname}, which is not a file of this tar`);
        await fs.link(path.join(root, target), host);
        entry.resume();
        break;
      }
      default:
        // Devices and fifos are not layer material (the diff skips them too).
        entry.resume();
        continue;
    }
    owners.set(rel, [h.uid, h.gid]);
    seen.add(rel);
  }
  for (const d of folderTimes.sort((a, b) => b.rel.length - a.rel.length)) {
    const host = path.join(root, d.rel);
    await fs.chmod(host, d.mode);
    await fs.utimes(host, d.mtime, d.mtime);
  }
  return { owners, seen };
}

/** `sh -c` script: the NUL-separated paths (relative to /) on stdin as tar entries on stdout. */
export const TAR_OUT_SCRIPT = `cd / && exec ${BUSYBOX} xargs -0 -r ${BUSYBOX} tar c --no-recursion -f -`;
