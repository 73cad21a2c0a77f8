// What changed in a builder Pod, without access to its file system from outside: a listing of every
// path of the container's root (mode, size, mtime; busybox `find -xdev` + `stat`) taken when it
// starts (the `snapshot` init container, pod-spec.ts) and again when asked, diffed here. The rules
// follow diffRoots (@sandflow/images), which the embedded builder uses: a path counts as modified
// when its type or permissions differ, or, for a file or symlink, its size or mtime; a folder's
// contents changing does not modify the folder. A deleted folder is one deletion; an added folder
// brings its whole subtree. Sockets, fifos and devices are skipped. Not listed: the kernel's and the
// runtime's folders (/proc, /sys, /dev), the tools (/.sandflow), the files the kubelet mounts into
// every container (/etc/hosts, /etc/hostname, /etc/resolv.conf) and the organization's mount points.
// A name with a newline in it arrives over several lines; the lines that do not start a record are
// joined back onto the name before them.
import { comparePaths, type EntryType, type RootChange } from '@sandflow/images';

export const TOOLS_DIR = '/.sandflow';
export const BUSYBOX = `${TOOLS_DIR}/busybox`;

export const EXCLUDED = [
  '/proc',
  '/sys',
  '/dev',
  TOOLS_DIR,
  '/etc/hosts',
  '/etc/hostname',
  '/etc/resolv.conf',
];

/** One word for `sh -c`, quoted. */
export const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** A literal path as a `find -path` pattern. */
const pattern = (p: string) => p.replace(/[*?[\]\\]/g, (c) => `\\${c}`);

const normalize = (p: string) => `/${p.replace(/^\/+|\/+$/g, '')}`;

/** The shell command listing the root: one `<mode hex> <size> <mtime> <path>` line per path. */
export function listingScript(mountPaths: string[] = []): string {
  const pruned = [...EXCLUDED, ...mountPaths.map(normalize)]
    .map((p) => `-path ${shellQuote(pattern(p))}`)
    .join(' -o ');
  return `${BUSYBOX} find / -xdev \\( ${pruned} \\) -prune -o -exec ${BUSYBOX} stat -c '%f %s %Y %n' {} +`;
}

export interface ListedEntry {
  type: EntryType;
  /** Permission bits (mode & 0o7777). */
  mode: number;
  size: number;
  mtime: number;
}

/** Path (relative to the root, no leading slash) → entry. */
export type Listing = Map<string, ListedEntry>;

const S_IFMT = 0o170000;
const TYPES: Record<number, EntryType> = { 0o040000: 'directory', 0o100000: 'file', 0o120000: 'symlink' };
const RECORD = /^([0-9a-f]{1,8}) (\d+) (\d+) (\/.*)$/;

export function parseListing(text: string, mountPaths: string[] = []): Listing {
  const excluded = [...EXCLUDED, ...mountPaths.map(normalize)];
  const records: { mode: number; size: number; mtime: number; name: string }[] = [];
  // The newline ending the text ends the last record; it is not part of its name.
  for (const line of text.replace(/\n$/, '').split('\n')) {
    const m = RECORD.exec(line);
    if (m) records.push({ mode: parseInt(m[1]!, 16), size: Number(m[2]), mtime: Number(m[3]), name: m[4]! });
    else if (records.length > 0) records[records.length - 1]!.name += `\n${line}`;
  }
  const out: Listing = new Map();
  for (const { name, ...r } of records) {
    const type = TYPES[r.mode & S_IFMT];
    const rel = name.replace(/^\/+/, '');
    if (!type || !rel || excluded.some((x) => name === x || name.startsWith(`${x}/`))) continue;
    out.set(rel, { type, mode: r.mode & 0o7777, size: r.size, mtime: r.mtime });
  }
  return out;
}

function differs(a: ListedEntry, b: ListedEntry): boolean {
  if (a.mode !== b.mode) return true;
  if (a.type === 'directory') return false;
  return a.size !== b.size || a.mtime !== b.mtime;
}

const parentsOf = (rel: string) =>
  rel
    .split('/')
    .map((_, i, parts) => parts.slice(0, i).join('/'))
    .slice(1);

/** The changes from `before` to `after`, sorted by path (a folder before what is inside it). */
export function diffListings(before: Listing, after: Listing): RootChange[] {
  const out: RootChange[] = [];
  // A path whose folder is gone or is no longer a folder went with it: not a deletion of its own.
  const underReplaced = (rel: string) =>
    parentsOf(rel).some((p) => {
      const was = before.get(p);
      const now = after.get(p);
      return was?.type === 'directory' && now?.type !== 'directory';
    });
  for (const [rel, was] of before) {
    const now = after.get(rel);
    if (!now) {
      if (!underReplaced(rel)) out.push({ path: rel, kind: 'deleted', type: was.type });
    } else if (now.type !== was.type || differs(was, now)) {
      out.push({ path: rel, kind: 'modified', type: now.type });
    }
  }
  for (const [rel, now] of after) {
    if (!before.has(rel)) out.push({ path: rel, kind: 'added', type: now.type });
  }
  return out.sort((a, b) => comparePaths(a.path, b.path));
}

/**
 * What a commit's tar must hold, relative to the root: every added or modified path and the folders
 * above every change (deletions included), so the layer's parent folders keep the container's modes.
 */
export function tarPaths(changes: RootChange[]): string[] {
  const wanted = new Set<string>();
  for (const c of changes) {
    for (const p of parentsOf(c.path)) wanted.add(p);
    if (c.kind !== 'deleted') wanted.add(c.path);
  }
  return [...wanted].sort(comparePaths);
}
