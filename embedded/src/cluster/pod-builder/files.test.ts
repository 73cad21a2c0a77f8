// Files in and out of a builder Pod, without the Pod: upload targets, the spool's limit, the
// one-entry tar an upload sends (read back by busybox tar), and the extraction of what busybox
// `tar c` sends for a commit, including archives it must refuse.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { BuilderError } from '@sandflow/images';
import tar from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitCodeOf } from './exec.js';
import { containerPath, extractInto, singleFileTar, spool, uploadTarget } from './files.js';

const busybox = ['/usr/bin/busybox', '/bin/busybox'].find((p) => fs.existsSync(p));
if (!busybox) console.warn('pod-builder files tests with busybox tar skipped: busybox not installed');

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pod-builder-files-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('uploadTarget and containerPath', () => {
  it.each([
    {
      path: '/srv/app/hello.txt',
      target: { dir: '/srv/app', name: 'hello.txt' },
      shell: '/srv/app/hello.txt',
    },
    { path: '/top', target: { dir: '/', name: 'top' }, shell: '/top' },
    { path: 'relative.txt', target: { dir: '.', name: 'relative.txt' }, shell: 'relative.txt' },
    { path: 'a//b/./c.txt', target: { dir: 'a/b', name: 'c.txt' }, shell: 'a/b/c.txt' },
  ])('$path goes to $target.dir', ({ path: p, target, shell }) => {
    expect(uploadTarget(p)).toEqual(target);
    expect(containerPath(p)).toBe(shell);
  });

  it.each(['../escape', '/etc/../../escape', 'a/../b'])('refuses %s with BAD_PATH', (p) => {
    expect(() => uploadTarget(p)).toThrow(expect.objectContaining({ code: 'BAD_PATH' }));
    expect(() => containerPath(p)).toThrow(expect.objectContaining({ code: 'BAD_PATH' }));
  });

  it('refuses the root folder as an upload target, answers it for a look-up', () => {
    expect(() => uploadTarget('/')).toThrow(/is the root folder/);
    expect(containerPath('/')).toBe('/');
  });
});

describe('spool', () => {
  it('keeps what came within the limit', async () => {
    const file = path.join(tmp, 'ok');
    expect(await spool(Readable.from([Buffer.from('héllo')]), file, 'the upload', 10)).toEqual({ size: 6 });
    expect(fs.readFileSync(file, 'utf8')).toBe('héllo');
  });

  it('refuses past the limit with TOO_LARGE and leaves no file', async () => {
    const file = path.join(tmp, 'big');
    const error = await spool(
      Readable.from([Buffer.alloc(600), Buffer.alloc(600)]),
      file,
      'the upload to /big.bin',
      1000,
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BuilderError);
    expect(error).toMatchObject({
      code: 'TOO_LARGE',
      message: 'the upload to /big.bin is larger than 1000 bytes',
    });
    expect(fs.existsSync(file)).toBe(false);
  });
});

describe.skipIf(!busybox)('tars of busybox', () => {
  it('an upload tar is what busybox tar extracts', async () => {
    const file = path.join(tmp, 'content');
    fs.writeFileSync(file, 'uploaded\n');
    const archive = path.join(tmp, 'upload.tar');
    await pipeline(singleFileTar(file, 9, '.sandflow-upload-x'), fs.createWriteStream(archive));
    const out = path.join(tmp, 'upload-out');
    fs.mkdirSync(out);
    execFileSync(busybox!, ['tar', 'x', '-o', '-C', out, '-f', archive]);
    expect(fs.readFileSync(path.join(out, '.sandflow-upload-x'), 'utf8')).toBe('uploaded\n');
    expect(fs.statSync(path.join(out, '.sandflow-upload-x')).mode & 0o777).toBe(0o644);
  });

  /** What TAR_OUT_SCRIPT sends: busybox tar of `paths` under `dir`, xargs splitting it in `perRun`. */
  function busyboxTar(dir: string, paths: string[], perRun = 1000): Buffer {
    return execFileSync(
      'sh',
      [
        '-c',
        `cd "$1" && ${busybox} xargs -0 -r -n ${perRun} ${busybox} tar c --no-recursion -f -`,
        'sh',
        dir,
      ],
      {
        input: `${paths.join('\0')}\0`,
        maxBuffer: 1 << 26,
      },
    );
  }

  async function extract(bytes: Buffer, wanted: string[]) {
    const root = fs.mkdtempSync(path.join(tmp, 'root-'));
    const x = tar.extract();
    const done = extractInto(x, root, new Set(wanted));
    x.end(bytes);
    return { root, result: await done };
  }

  it.each([1, 1000])(
    'extracts files, folders, symlinks and hard links with their modes and mtimes (%i per tar run)',
    async (perRun) => {
      const src = fs.mkdtempSync(path.join(tmp, 'src-'));
      fs.mkdirSync(path.join(src, 'srv/data'), { recursive: true });
      fs.writeFileSync(path.join(src, 'srv/data/upload.txt'), 'uploaded\n');
      fs.chmodSync(path.join(src, 'srv/data/upload.txt'), 0o640);
      fs.linkSync(path.join(src, 'srv/data/upload.txt'), path.join(src, 'srv/data/again.txt'));
      fs.symlinkSync('data/upload.txt', path.join(src, 'srv/link'));
      fs.writeFileSync(path.join(src, 'srv/data/unlisted'), 'not asked for');
      fs.chmodSync(path.join(src, 'srv/data'), 0o750);
      fs.utimesSync(path.join(src, 'srv/data/upload.txt'), 1_000_000, 1_000_000);
      fs.utimesSync(path.join(src, 'srv/data'), 2_000_000, 2_000_000);
      const wanted = ['srv', 'srv/data', 'srv/data/again.txt', 'srv/data/upload.txt', 'srv/link'];
      const { root, result } = await extract(busyboxTar(src, wanted, perRun), wanted);
      expect([...result.seen].sort()).toEqual(wanted);
      expect(fs.readFileSync(path.join(root, 'srv/data/upload.txt'), 'utf8')).toBe('uploaded\n');
      expect(fs.readFileSync(path.join(root, 'srv/data/again.txt'), 'utf8')).toBe('uploaded\n');
      expect(fs.statSync(path.join(root, 'srv/data/upload.txt')).mode & 0o7777).toBe(0o640);
      expect(fs.statSync(path.join(root, 'srv/data/upload.txt')).mtimeMs).toBe(1_000_000_000);
      expect(fs.statSync(path.join(root, 'srv/data')).mode & 0o7777).toBe(0o750);
      expect(fs.statSync(path.join(root, 'srv/data')).mtimeMs).toBe(2_000_000_000);
      expect(fs.readlinkSync(path.join(root, 'srv/link'))).toBe('data/upload.txt');
      expect(fs.existsSync(path.join(root, 'srv/data/unlisted'))).toBe(false);
      expect(result.owners.get('srv/data/upload.txt')).toEqual([process.getuid!(), process.getgid!()]);
    },
  );

  it.each([
    {
      case: 'a path not asked for',
      entries: [
        { name: 'srv/', type: 'directory' },
        { name: 'srv/x', type: 'file', body: 'x' },
      ],
      wanted: ['srv'],
      error: /"srv\/x": not a path of the commit/,
    },
    {
      case: 'a path before its folder',
      entries: [{ name: 'srv/x', type: 'file', body: 'x' }],
      wanted: ['srv', 'srv/x'],
      error: /"srv\/x": its folder is not a folder of this tar/,
    },
    {
      // A container racing the save: `etc` listed as a folder, sent as a symlink to the host's /tmp.
      case: 'a path under a symlink sent in place of its folder',
      entries: [
        { name: 'etc', type: 'symlink', linkname: os.tmpdir() },
        { name: 'etc/escape', type: 'file', body: 'x' },
      ],
      wanted: ['etc', 'etc/escape'],
      error: /"etc\/escape": its folder is not a folder of this tar/,
    },
    {
      case: 'a hard link to a file it did not send',
      entries: [{ name: 'passwd', type: 'link', linkname: '/etc/passwd' }],
      wanted: ['passwd'],
      error: /a hard link to \/etc\/passwd, which is not a file of this tar/,
    },
    {
      case: 'a path twice',
      entries: [
        { name: 'a', type: 'file', body: 'x' },
        { name: 'a', type: 'file', body: 'y' },
      ],
      wanted: ['a'],
      error: /"a": twice/,
    },
  ] as const)('refuses $case', async ({ entries, wanted, error }) => {
    const pack = tar.pack();
    for (const { body, ...header } of entries as readonly (Partial<tar.Header> & {
      name: string;
      body?: string;
    })[])
      pack.entry({ ...header, ...(body ? { size: body.length } : {}) }, body ?? '');
    pack.finalize();
    const chunks: Buffer[] = [];
    for await (const chunk of pack as unknown as AsyncIterable<Buffer>) chunks.push(chunk);
    await expect(extract(Buffer.concat(chunks), [...wanted])).rejects.toThrow(error);
    expect(fs.existsSync(path.join(os.tmpdir(), 'escape'))).toBe(false);
  });
});

describe('exitCodeOf', () => {
  it.each([
    { status: { status: 'Success' }, code: 0 },
    {
      status: {
        status: 'Failure',
        reason: 'NonZeroExitCode',
        details: { causes: [{ reason: 'ExitCode', message: '3' }] },
      },
      code: 3,
    },
  ])('$status.status → $code', ({ status, code }) => {
    expect(exitCodeOf(status)).toBe(code);
  });

  it('is an error for a Status about something else', () => {
    expect(
      exitCodeOf({ status: 'Failure', reason: 'InternalError', message: 'container not found ("builder")' }),
    ).toEqual(new Error('container not found ("builder")'));
  });
});
