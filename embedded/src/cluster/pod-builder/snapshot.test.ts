// The start snapshot's listing and its diff (pure), and the listing script run by a real busybox.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  diffListings,
  listingScript,
  parseListing,
  tarPaths,
  type ListedEntry,
  type Listing,
} from './snapshot.js';

const DIR = 0x41ed; // drwxr-xr-x
const FILE = 0x81a4; // -rw-r--r--
const LINK = 0xa1ff; // lrwxrwxrwx

const line = (mode: number, size: number, mtime: number, name: string) =>
  `${mode.toString(16)} ${size} ${mtime} ${name}\n`;

describe('parseListing', () => {
  it.each([
    {
      case: 'files, folders and symlinks with their permission bits',
      text:
        line(DIR, 4096, 10, '/') +
        line(DIR, 4096, 10, '/etc') +
        line(FILE, 5, 20, '/etc/passwd') +
        line(LINK, 7, 30, '/bin/sh'),
      mounts: [],
      expected: {
        etc: { type: 'directory', mode: 0o755, size: 4096, mtime: 10 },
        'etc/passwd': { type: 'file', mode: 0o644, size: 5, mtime: 20 },
        'bin/sh': { type: 'symlink', mode: 0o777, size: 7, mtime: 30 },
      },
    },
    {
      case: 'fifos, sockets and devices skipped',
      text:
        line(0x11a4, 0, 1, '/run/fifo') +
        line(0xc1ed, 0, 1, '/run/sock') +
        line(0x21a4, 0, 1, '/run/tty') +
        line(FILE, 1, 1, '/run/ok'),
      mounts: [],
      expected: { 'run/ok': { type: 'file', mode: 0o644, size: 1, mtime: 1 } },
    },
    {
      case: 'the runtime, the tools, the kubelet files and mount points left out',
      text:
        line(DIR, 0, 1, '/proc') +
        line(FILE, 0, 1, '/proc/cpuinfo') +
        line(DIR, 0, 1, '/.sandflow') +
        line(FILE, 1, 1, '/.sandflow/start.list') +
        line(FILE, 1, 1, '/etc/hosts') +
        line(FILE, 1, 1, '/etc/hosts.allow') +
        line(DIR, 0, 1, '/mnt/org') +
        line(FILE, 1, 1, '/mnt/org/data') +
        line(DIR, 0, 1, '/mnt'),
      mounts: ['/mnt/org/'],
      expected: {
        'etc/hosts.allow': { type: 'file', mode: 0o644, size: 1, mtime: 1 },
        mnt: { type: 'directory', mode: 0o755, size: 0, mtime: 1 },
      },
    },
    {
      case: 'a name with newlines joined back, a setuid mode kept',
      text: line(FILE, 3, 9, '/tmp/a\nb\nc') + line(0x89ed, 8, 9, '/usr/bin/su'),
      mounts: [],
      expected: {
        'tmp/a\nb\nc': { type: 'file', mode: 0o644, size: 3, mtime: 9 },
        'usr/bin/su': { type: 'file', mode: 0o4755, size: 8, mtime: 9 },
      },
    },
    { case: 'nothing', text: '', mounts: [], expected: {} },
  ])('$case', ({ text, mounts, expected }) => {
    expect(Object.fromEntries(parseListing(text, mounts))).toEqual(expected);
  });
});

const entry = (type: ListedEntry['type'], over: Partial<ListedEntry> = {}): ListedEntry => ({
  type,
  mode: type === 'directory' ? 0o755 : 0o644,
  size: type === 'directory' ? 4096 : 10,
  mtime: 100,
  ...over,
});
const listing = (o: Record<string, ListedEntry>): Listing => new Map(Object.entries(o));

describe('diffListings', () => {
  const base = {
    etc: entry('directory'),
    'etc/passwd': entry('file'),
    'etc/group': entry('file'),
    home: entry('directory'),
    'home/user': entry('directory'),
    'home/user/.profile': entry('file'),
    'bin/sh': entry('symlink', { size: 7 }),
    bin: entry('directory'),
  };

  it.each([
    { case: 'nothing changed', after: { ...base }, changes: [] },
    {
      case: 'a folder whose contents changed is not itself modified',
      after: { ...base, etc: entry('directory', { mtime: 999, size: 8192 }), 'etc/new': entry('file') },
      changes: [{ path: 'etc/new', kind: 'added', type: 'file' }],
    },
    {
      case: 'a file modified by size, mtime or mode; a folder by mode',
      after: {
        ...base,
        'etc/passwd': entry('file', { size: 11 }),
        'etc/group': entry('file', { mtime: 101 }),
        'home/user/.profile': entry('file', { mode: 0o600 }),
        home: entry('directory', { mode: 0o700 }),
      },
      changes: [
        { path: 'etc/group', kind: 'modified', type: 'file' },
        { path: 'etc/passwd', kind: 'modified', type: 'file' },
        { path: 'home', kind: 'modified', type: 'directory' },
        { path: 'home/user/.profile', kind: 'modified', type: 'file' },
      ],
    },
    {
      case: 'a deleted folder is one deletion',
      after: { ...base, home: undefined, 'home/user': undefined, 'home/user/.profile': undefined },
      changes: [{ path: 'home', kind: 'deleted', type: 'directory' }],
    },
    {
      case: 'an added folder brings its subtree',
      after: {
        ...base,
        srv: entry('directory'),
        'srv/data': entry('directory'),
        'srv/data/x': entry('file'),
      },
      changes: [
        { path: 'srv', kind: 'added', type: 'directory' },
        { path: 'srv/data', kind: 'added', type: 'directory' },
        { path: 'srv/data/x', kind: 'added', type: 'file' },
      ],
    },
    {
      case: 'a folder replaced by a file takes its contents with it',
      after: { ...base, home: entry('file'), 'home/user': undefined, 'home/user/.profile': undefined },
      changes: [{ path: 'home', kind: 'modified', type: 'file' }],
    },
    {
      case: 'a file replaced by a folder brings what is in it',
      after: { ...base, 'etc/group': entry('directory'), 'etc/group/x': entry('file') },
      changes: [
        { path: 'etc/group', kind: 'modified', type: 'directory' },
        { path: 'etc/group/x', kind: 'added', type: 'file' },
      ],
    },
    {
      case: 'a symlink pointed elsewhere',
      after: { ...base, 'bin/sh': entry('symlink', { size: 9, mtime: 200 }) },
      changes: [{ path: 'bin/sh', kind: 'modified', type: 'symlink' }],
    },
  ])('$case', ({ after, changes }) => {
    const now = Object.fromEntries(Object.entries(after).filter(([, v]) => v !== undefined)) as Record<
      string,
      ListedEntry
    >;
    expect(diffListings(listing(base), listing(now))).toEqual(changes);
  });

  it('sorts a folder right before what is in it (component order)', () => {
    const after = listing({ ...base, 'a.txt': entry('file'), a: entry('directory'), 'a/b': entry('file') });
    expect(diffListings(listing(base), after).map((c) => c.path)).toEqual(['a', 'a/b', 'a.txt']);
  });
});

describe('tarPaths', () => {
  it.each([
    { changes: [], paths: [] },
    {
      changes: [
        { path: 'srv/data/x', kind: 'added', type: 'file' },
        { path: 'etc/group', kind: 'deleted', type: 'file' },
        { path: 'usr/lib/a/b', kind: 'modified', type: 'file' },
      ],
      paths: ['etc', 'srv', 'srv/data', 'srv/data/x', 'usr', 'usr/lib', 'usr/lib/a', 'usr/lib/a/b'],
    },
  ] as const)('the changed paths and the folders above every change: $paths', ({ changes, paths }) => {
    expect(tarPaths([...changes])).toEqual(paths);
  });
});

describe('listingScript', () => {
  it('quotes a mount path for the shell and as a find pattern', () => {
    const script = listingScript(["/mnt/it's*[x]"]);
    expect(script).toContain(`-path '/mnt/it'\\''s\\*\\[x\\]'`);
    expect(script).toContain(`-path '/proc'`);
  });

  // busybox's find and stat, as the tools container carries them: the script lists a real folder
  // (its root rewritten to it) and parseListing reads what it wrote.
  const busybox = ['/usr/bin/busybox', '/bin/busybox'].find((p) => fs.existsSync(p));
  it.skipIf(!busybox)('lists a real folder with busybox find and stat', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'listing-'));
    try {
      fs.mkdirSync(path.join(dir, 'etc'));
      fs.writeFileSync(path.join(dir, 'etc', 'pass wd'), 'hello');
      fs.symlinkSync('etc', path.join(dir, 'link'));
      fs.utimesSync(path.join(dir, 'etc', 'pass wd'), 1000, 1000);
      const script = listingScript()
        .replaceAll('/.sandflow/busybox', busybox!)
        .replace(' find / ', ` find ${dir} `);
      const text = execFileSync('sh', ['-c', script], { encoding: 'utf8' }).replaceAll(dir, '');
      const listed = parseListing(text);
      expect(listed.get('etc/pass wd')).toEqual({ type: 'file', mode: 0o644, size: 5, mtime: 1000 });
      expect(listed.get('link')).toMatchObject({ type: 'symlink', size: 3 });
      expect(listed.get('etc')).toMatchObject({ type: 'directory' });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
