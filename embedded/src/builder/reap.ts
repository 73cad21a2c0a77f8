// A builder container on disk: `<dataDir>/builders/<id>/builder.json` (who started it, from which
// image, and which process owns it) and `<dataDir>/builders/<id>/rootfs` (the writable copy of the
// image root). The metadata is written before the copy starts, so whatever a crash leaves behind
// names its owner; a process that starts later removes every container whose owner is gone
// (a pid is recognized with its start time, so a reused pid does not keep a leftover alive).
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Architecture } from '@sandflow/images';

export interface BuilderMeta {
  id: string;
  image: string;
  architecture: Architecture;
  owner: string;
  organization: string;
  startedAt: string;
  uid: number;
  gid: number;
  /** The process that owns the container, and when that process started (clock ticks since boot). */
  pid: number;
  pidStartTime: string;
}

export const META_FILE = 'builder.json';

export function buildersDir(dataDir: string): string {
  return path.join(dataDir, 'builders');
}

/** Field 22 of /proc/<pid>/stat: when the process started; undefined when it does not exist. */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count from the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

export function ownMeta(fields: Omit<BuilderMeta, 'pid' | 'pidStartTime'>): BuilderMeta {
  return { ...fields, pid: process.pid, pidStartTime: processStartTime(process.pid) ?? '' };
}

export async function writeMeta(dir: string, meta: BuilderMeta): Promise<void> {
  await fsp.writeFile(path.join(dir, META_FILE), JSON.stringify(meta, null, 2));
}

async function readMeta(dir: string): Promise<BuilderMeta | undefined> {
  try {
    return JSON.parse(await fsp.readFile(path.join(dir, META_FILE), 'utf8')) as BuilderMeta;
  } catch {
    return undefined;
  }
}

/** Removes a tree even where the image or a shell made folders read-only. */
export async function removeTree(p: string): Promise<void> {
  try {
    await fsp.rm(p, { recursive: true, force: true });
  } catch {
    const walk = async (d: string): Promise<void> => {
      await fsp.chmod(d, 0o700).catch(() => undefined);
      for (const e of await fsp.readdir(d, { withFileTypes: true }).catch(() => [])) {
        if (e.isDirectory()) await walk(path.join(d, e.name));
      }
    };
    await walk(p);
    await fsp.rm(p, { recursive: true, force: true });
  }
}

/** A folder without metadata this old is a start that crashed before writing it. */
const ORPHAN_GRACE_MS = 60_000;

/** Removes the containers whose owning process is gone; answers their ids. */
export async function reapBuilders(dataDir: string): Promise<string[]> {
  const root = buildersDir(dataDir);
  let names: string[];
  try {
    names = await fsp.readdir(root);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const reaped: string[] = [];
  for (const name of names) {
    const dir = path.join(root, name);
    const meta = await readMeta(dir);
    if (meta) {
      if (processStartTime(meta.pid) === meta.pidStartTime) continue;
    } else {
      const st = await fsp.lstat(dir).catch(() => undefined);
      if (!st || Date.now() - st.mtimeMs < ORPHAN_GRACE_MS) continue;
    }
    await removeTree(dir);
    reaped.push(name);
  }
  return reaped;
}
