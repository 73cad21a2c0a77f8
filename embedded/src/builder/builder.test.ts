// The bwrap builder against real pieces: Debian's busybox-static image pushed to Debian's
// docker-registry, bwrap shells under a PTY, commits pulled back through a fresh layout.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import {
  BUSYBOX_REFERENCE,
  BuilderError,
  LayoutStore,
  RegistryStore,
  buildBusyboxImage,
  copyImage,
  findBusyboxStatic,
  machineArchitecture,
  storeRootfsProvider,
  type BuilderShell,
} from '@sandflow/images';
import { registryMissing, startRegistry, type TestRegistry } from '@sandflow/images/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findBwrap } from '../bwrap/sandbox.js';
import { terminalOutput } from '../testing/terminal-output.js';
import { BwrapBuilder, reapBuilders } from './index.js';

const missing = [
  !findBwrap() && 'bwrap (apt-get install bubblewrap)',
  !findBusyboxStatic() && 'busybox-static',
  registryMissing(),
].filter(Boolean);
if (missing.length > 0) console.warn(`builder tests skipped: ${missing.join(' and ')} not installed`);

const arch = machineArchitecture() === 'arm64' ? 'arm' : 'amd64';
let tmp: string;
let dataDir: string;
let registry: TestRegistry;
let image: string;
let builder: BwrapBuilder;

/** A container of the busybox image; `over` changes the start options. */
const startContainer = (over: Partial<Parameters<BwrapBuilder['start']>[0]> = {}) =>
  builder.start({
    image,
    architecture: arch,
    uid: 0,
    gid: 0,
    owner: 'alice',
    organization: 'acme',
    ...over,
  });

interface Term {
  shell: BuilderShell;
  output: () => string;
  /** Waits (bounded) until the output matches; answers the match. */
  waitFor: (pattern: RegExp) => Promise<RegExpMatchArray>;
  run: (line: string) => void;
}

async function openTerm(id: string, size = { cols: 80, rows: 24 }): Promise<Term> {
  const shell = await builder.shell(id, size);
  const { append, output, waitFor } = terminalOutput(400);
  shell.onData(append);
  await waitFor(/[$#] /);
  return { shell, output, waitFor, run: (line) => shell.write(`${line}\r`) };
}

const rootOf = (id: string) => path.join(dataDir, 'builders', id, 'rootfs');

describe.skipIf(missing.length > 0)('bwrap builder', () => {
  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'builder-'));
    dataDir = path.join(tmp, 'data');
    registry = await startRegistry();
    const built = await buildBusyboxImage(path.join(tmp, 'hack-images'));
    const [repository, tag] = BUSYBOX_REFERENCE.split(':') as [string, string];
    await copyImage({
      from: new LayoutStore(built.oci),
      fromRepository: repository,
      reference: tag,
      to: new RegistryStore({ host: registry.host }),
      toRepository: repository,
      tag,
    });
    image = `${registry.host}/${BUSYBOX_REFERENCE}`;
    builder = new BwrapBuilder({ dataDir });
  }, 60_000);
  afterAll(async () => {
    await builder?.close();
    await registry?.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  describe('shells', () => {
    let id: string;
    beforeAll(async () => {
      id = (await startContainer({ uid: 1234, gid: 4321 })).id;
    }, 30_000);
    afterAll(() => builder.stop(id));

    it.each([
      { command: 'echo $((6*7))', shows: /\r\n42\r\n/ },
      { command: 'cat /etc/os-release', shows: /ID=sandflow-busybox/ },
      { command: 'id', shows: /uid=1234 gid=4321/ },
      { command: 'echo "$TERM $LANG"', shows: /\r\nxterm-256color C\.UTF-8\r\n/ },
      { command: 'echo "é → ✓"', shows: /\r\né → ✓\r\n/ },
    ])('runs `$command` in the image', async ({ command, shows }) => {
      const term = await openTerm(id);
      term.run(command);
      await term.waitFor(shows);
      term.shell.close();
    });

    it('follows a resize of the terminal', async () => {
      const term = await openTerm(id, { cols: 80, rows: 24 });
      term.run('stty size');
      await term.waitFor(/\r\n24 80\r\n/);
      term.shell.resize(132, 40);
      term.run('stty size');
      await term.waitFor(/\r\n40 132\r\n/);
      term.shell.close();
    });

    it('sends Ctrl-C to the foreground job and keeps the shell', async () => {
      const term = await openTerm(id);
      fs.rmSync(path.join(rootOf(id), 'tmp', 'sleeping'), { force: true });
      term.run(`sh -c 'echo $$ > /tmp/sleeping; exec sleep 100'`);
      for (let i = 0; i < 200 && !fs.existsSync(path.join(rootOf(id), 'tmp', 'sleeping')); i++) {
        await new Promise((r) => setTimeout(r, 25));
      }
      term.shell.write('\x03');
      term.run('echo "rc=$?"');
      await term.waitFor(/rc=130/);
      const exit = new Promise<number>((resolve) => term.shell.onExit(resolve));
      term.run('exit 3');
      expect(await exit).toBe(3);
    });

    it('shares the container folder between shells', async () => {
      const a = await openTerm(id);
      const b = await openTerm(id);
      a.run('echo from-a > /root/shared');
      await a.waitFor(/echo from-a.*\r\n.*[$#] /s);
      b.run('cat /root/shared');
      await b.waitFor(/\r\nfrom-a\r\n/);
      a.shell.close();
      b.shell.close();
    });
  });

  describe('files', () => {
    let id: string;
    beforeAll(async () => {
      id = (await startContainer()).id;
      fs.symlinkSync('/etc', path.join(rootOf(id), 'etc-link'));
      fs.symlinkSync('../../../../../../../../tmp', path.join(rootOf(id), 'climb'));
    }, 30_000);
    afterAll(() => builder.stop(id));

    it('writes an upload that the shell then reads', async () => {
      const written = await builder.writeFile(id, '/srv/app/hello.txt', Readable.from(['héllo ', 'world\n']));
      expect(written.size).toBe(Buffer.byteLength('héllo world\n'));
      expect(await builder.exists(id, '/srv/app/hello.txt')).toBe(true);
      const term = await openTerm(id);
      term.run('cat /srv/app/hello.txt');
      await term.waitFor(/\r\nhéllo world\r\n/);
      term.shell.close();
    });

    it.each([
      { path: 'relative.txt', lands: 'relative.txt' },
      { path: '/etc-link/through-link', lands: 'etc/through-link' },
    ])('places $path inside the root folder', async ({ path: p, lands }) => {
      await builder.writeFile(id, p, Readable.from(['x']));
      expect(fs.readFileSync(path.join(rootOf(id), lands), 'utf8')).toBe('x');
    });

    it('replaces a symlink at the target instead of writing through it', async () => {
      const outside = path.join(tmp, 'outside.txt');
      fs.writeFileSync(outside, 'host');
      fs.symlinkSync(outside, path.join(rootOf(id), 'to-host'));
      await builder.writeFile(id, '/to-host', Readable.from(['inside']));
      expect(fs.readFileSync(outside, 'utf8')).toBe('host');
      expect(fs.lstatSync(path.join(rootOf(id), 'to-host')).isFile()).toBe(true);
    });

    it.each([
      { path: '../escape', code: 'BAD_PATH' },
      { path: '/etc/../../escape', code: 'BAD_PATH' },
      { path: '/climb/escape', code: 'BAD_PATH' },
      { path: '/', code: 'BAD_PATH' },
      { path: '/etc', code: 'BAD_PATH' },
    ])('refuses $path with $code', async ({ path: p, code }) => {
      await expect(builder.writeFile(id, p, Readable.from(['x']))).rejects.toMatchObject({ code });
      expect(fs.existsSync('/tmp/escape')).toBe(false);
    });

    it('refuses an upload over maxBytes with TOO_LARGE and leaves nothing', async () => {
      const error = await builder
        .writeFile(id, '/big.bin', Readable.from([Buffer.alloc(600), Buffer.alloc(600)]), { maxBytes: 1000 })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BuilderError);
      expect(error).toMatchObject({ code: 'TOO_LARGE' });
      expect(
        fs.readdirSync(rootOf(id)).filter((n) => n.startsWith('.sandflow-upload') || n === 'big.bin'),
      ).toEqual([]);
    });

    it.each([
      { path: '/etc/passwd', exists: true },
      { path: '/etc/nope', exists: false },
      { path: '/nope/deeper', exists: false },
    ])('knows whether $path exists', async ({ path: p, exists }) => {
      expect(await builder.exists(id, p)).toBe(exists);
    });

    it('answers NOT_FOUND for an unknown container', async () => {
      await expect(builder.exists('nope', '/etc')).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(builder.shell('nope', { cols: 80, rows: 24 })).rejects.toMatchObject({
        code: 'NOT_FOUND',
      });
    });
  });

  describe('changes and commit', () => {
    let id: string;
    beforeAll(async () => {
      id = (await startContainer()).id;
      await builder.writeFile(id, '/srv/data/upload.txt', Readable.from(['uploaded\n']));
      const term = await openTerm(id);
      term.run('rm /etc/group && echo changed > /etc/hostname-note && rm -r /home && echo done-$((1+1))');
      await term.waitFor(/done-2/);
      term.shell.close();
    }, 30_000);
    afterAll(() => builder.stop(id));

    it('lists what was added and deleted since the start, sorted by path', async () => {
      const changes = await builder.changes(id);
      expect(changes).toEqual(
        expect.arrayContaining([
          { path: '/etc/group', kind: 'deleted' },
          { path: '/etc/hostname-note', kind: 'added' },
          { path: '/home', kind: 'deleted' },
          { path: '/srv', kind: 'added' },
          { path: '/srv/data', kind: 'added' },
          { path: '/srv/data/upload.txt', kind: 'added' },
        ]),
      );
      expect(changes.map((c) => c.path)).toEqual([...changes.map((c) => c.path)].sort());
      expect(changes.find((c) => c.path.startsWith('/etc/passwd'))).toBeUndefined();
    });

    /** The committed image as a fresh process would see it: a new layout, pulled and unpacked. */
    async function pulledRoot(reference: string, layoutDir: string) {
      const provider = storeRootfsProvider({
        layout: new LayoutStore(layoutDir),
        cacheDir: path.join(tmp, `roots-${path.basename(layoutDir)}`),
      });
      return (await provider(reference, arch)).root;
    }

    it.each([
      { target: 'registry', reference: () => `${registry.host}/team/saved:1` },
      {
        target: 'registry, another repository of the source',
        reference: () => `${registry.host}/sandflow/saved:2`,
      },
    ])('commits to the $target and the pulled image holds the changes', async ({ reference }) => {
      const result = await builder.commit(id, { reference: reference() });
      expect(result.reference).toBe(`${reference()}@${result.digest}`);
      const root = await pulledRoot(result.reference, path.join(tmp, `pull-${result.digest.slice(7, 19)}`));
      expect(fs.readFileSync(path.join(root, 'srv/data/upload.txt'), 'utf8')).toBe('uploaded\n');
      expect(fs.readFileSync(path.join(root, 'etc/hostname-note'), 'utf8')).toBe('changed\n');
      expect(fs.existsSync(path.join(root, 'etc/group'))).toBe(false);
      expect(fs.existsSync(path.join(root, 'home'))).toBe(false);
      expect(fs.readFileSync(path.join(root, 'etc/os-release'), 'utf8')).toMatch(/ID=sandflow-busybox/);
      const remote = new RegistryStore({ host: registry.host });
      const repo = reference()
        .slice(registry.host.length + 1)
        .split(':')[0]!;
      expect(await remote.listTags(repo)).toContain(reference().split(':').at(-1));
    });

    it('commits a reference without a reachable registry to the local layout, where steps find it', async () => {
      const result = await builder.commit(id, { reference: 'my-sandbox:1' });
      expect(result.reference).toBe(`my-sandbox:1@${result.digest}`);
      expect(
        await new LayoutStore(path.join(dataDir, 'images')).listTags('docker.io/library/my-sandbox'),
      ).toEqual(['1']);
      for (const ref of ['my-sandbox:1', result.reference]) {
        const root = await pulledRoot(ref, path.join(dataDir, 'images'));
        expect(fs.readFileSync(path.join(root, 'srv/data/upload.txt'), 'utf8')).toBe('uploaded\n');
        expect(fs.existsSync(path.join(root, 'etc/group'))).toBe(false);
      }
    });
  });

  describe('lifecycle', () => {
    it('stop ends the shells and leaves nothing in builders/', async () => {
      const { id } = await startContainer();
      expect(builder.list().map((c) => c.id)).toContain(id);
      expect(builder.get(id)).toMatchObject({ owner: 'alice', organization: 'acme', image });
      const term = await openTerm(id);
      const exited = new Promise<number>((resolve) => term.shell.onExit(resolve));
      term.run('sleep 100');
      await builder.stop(id);
      expect(await exited).not.toBe(0);
      expect(fs.readdirSync(path.join(dataDir, 'builders'))).not.toContain(id);
      expect(builder.get(id)).toBeUndefined();
      await builder.stop(id);
    }, 30_000);

    it("shows the organization's mount points, which are not changes of the container", async () => {
      const shared = path.join(tmp, 'org-shared');
      fs.mkdirSync(shared, { recursive: true });
      fs.writeFileSync(path.join(shared, 'note'), 'from the host\n');
      const { id } = await startContainer({ mounts: [{ hostPath: shared, mountPath: '/mnt/org/shared' }] });
      const term = await openTerm(id);
      term.run('cat /mnt/org/shared/note && echo written > /mnt/org/shared/out && echo ok-$((3+4))');
      await term.waitFor(/from the host\r\n.*ok-7/s);
      expect(fs.readFileSync(path.join(shared, 'out'), 'utf8')).toBe('written\n');
      expect(await builder.changes(id)).toEqual([]);
      await builder.stop(id);
    }, 30_000);

    it('reaps the containers of a process that is gone and keeps its own', async () => {
      const live = await startContainer();
      const dead = spawnSync('true').pid!;
      const leftover = path.join(dataDir, 'builders', 'crashed');
      fs.mkdirSync(path.join(leftover, 'rootfs', 'locked', 'inner'), { recursive: true });
      fs.chmodSync(path.join(leftover, 'rootfs', 'locked'), 0o555);
      fs.writeFileSync(
        path.join(leftover, 'builder.json'),
        JSON.stringify({ id: 'crashed', pid: dead, pidStartTime: '1' }),
      );
      expect(await reapBuilders(dataDir)).toEqual(['crashed']);
      expect(fs.existsSync(leftover)).toBe(false);
      expect(fs.existsSync(rootOf(live.id))).toBe(true);
      await builder.stop(live.id);
    }, 30_000);

    it('refuses to start without bwrap rather than opening a host shell', async () => {
      const saved = process.env.PATH;
      process.env.PATH = '/nonexistent';
      let without: BwrapBuilder;
      try {
        without = new BwrapBuilder({ dataDir });
      } finally {
        process.env.PATH = saved;
      }
      await expect(
        without!.start({ image, architecture: arch, uid: 0, gid: 0, owner: 'a', organization: 'o' }),
      ).rejects.toMatchObject({
        code: 'UNAVAILABLE',
        message: expect.stringMatching(/needs bwrap \(bubblewrap\)/),
      });
    });
  });
});
