// The cluster-mode builder against real pieces: kube-lite with its kubelet (Pods under bwrap,
// pods/exec over WebSocket) as the cluster, Debian's busybox-static image in Debian's
// docker-registry as both the source and the helper image, commits pulled back from the registry.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import type { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import {
  BuilderError,
  ImageError,
  LayoutStore,
  RegistryStore,
  machineArchitecture,
  resolveImage,
  storeRootfsProvider,
  type BuilderShell,
} from '@sandflow/images';
import type { TestRegistry } from '@sandflow/images/testing';
import tar from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeletMissing, setUp, type Fixture, type Node } from '../../kube-lite/kubelet/test-fixture.js';
import { terminalOutput } from '../../testing/terminal-output.js';
import { PodBuilder } from './pod-builder.js';

const missing = kubeletMissing;
if (missing.length > 0) console.warn(`pod builder tests skipped: ${missing.join(' and ')} not installed`);

const arch = machineArchitecture() === 'arm64' ? 'arm' : 'amd64';
const NS = 'sf-acme';
let fixture: Fixture;
let node: Node;
let tmp: string;
let kc: KubeConfig;
let core: CoreV1Api;
let registry: TestRegistry;
let image: string;
let builder: PodBuilder;

const newBuilder = (over: Partial<ConstructorParameters<typeof PodBuilder>[0]> = {}) =>
  new PodBuilder({
    kubeConfig: kc,
    namespaceOf: async () => NS,
    helperImage: image,
    startTimeoutMs: 60_000,
    tmpDir: tmp,
    localDomain: 'sandflow.local',
    ...over,
  });

const startContainer = (over: Partial<Parameters<PodBuilder['start']>[0]> = {}) =>
  builder.start({ image, architecture: arch, uid: 0, gid: 0, owner: 'alice', organization: 'acme', ...over });

interface Term {
  shell: BuilderShell;
  waitFor: (pattern: RegExp) => Promise<RegExpMatchArray>;
  run: (line: string) => void;
}

async function openTerm(id: string, size = { cols: 80, rows: 24 }): Promise<Term> {
  const shell = await builder.shell(id, size);
  const { append, waitFor } = terminalOutput();
  shell.onData(append);
  await waitFor(/[$#] /);
  return { shell, waitFor, run: (line) => shell.write(`${line}\r`) };
}

describe.skipIf(missing.length > 0)('pod builder on kube-lite', () => {
  beforeAll(async () => {
    fixture = await setUp('pod-builder-');
    ({ tmp, registry, image } = fixture);
    node = await fixture.boot();
    ({ kc, core } = node);
    await core.createNamespace({ body: { metadata: { name: NS } } });
    builder = newBuilder();
    await builder.synced;
  }, 120_000);

  afterAll(async () => {
    await builder?.close();
    await node?.stop();
    await fixture?.cleanup();
  });

  describe('shells', () => {
    let id: string;
    beforeAll(async () => {
      id = (await startContainer({ uid: 1234, gid: 4321 })).id;
    }, 90_000);
    afterAll(() => builder.stop(id), 30_000);

    it.each([
      { command: 'echo $((6*7))', shows: /\r\n42\r\n/ },
      { command: 'cat /etc/os-release', shows: /ID=sandflow-busybox/ },
      { command: 'id', shows: /uid=1234 gid=4321/ },
      { command: 'echo "$TERM $LANG"', shows: /\r\nxterm-256color C\.UTF-8\r\n/ },
      { command: 'echo "é → ✓"', shows: /\r\né → ✓\r\n/ },
    ])('runs `$command` in the image', { timeout: 30_000 }, async ({ command, shows }) => {
      const term = await openTerm(id);
      term.run(command);
      await term.waitFor(shows);
      term.shell.close();
    });

    it('follows a resize of the terminal and reports the exit code', { timeout: 30_000 }, async () => {
      const term = await openTerm(id, { cols: 80, rows: 24 });
      term.run('stty size');
      await term.waitFor(/\r\n24 80\r\n/);
      term.shell.resize(132, 40);
      term.run('stty size');
      await term.waitFor(/\r\n40 132\r\n/);
      const exit = new Promise<number>((resolve) => term.shell.onExit(resolve));
      term.run('exit 3');
      expect(await exit).toBe(3);
    });

    it('is seen by another replica, through its own watch', { timeout: 30_000 }, async () => {
      const other = newBuilder();
      try {
        await other.synced;
        expect(other.get(id)).toEqual(builder.get(id));
        expect(other.list().map((c) => c.id)).toContain(id);
        expect(other.get(id)).toMatchObject({
          owner: 'alice',
          organization: 'acme',
          image,
          architecture: arch,
        });
      } finally {
        await other.close();
      }
    });
  });

  describe('files, changes and commit', () => {
    let id: string;
    beforeAll(async () => {
      id = (await startContainer()).id;
    }, 90_000);
    afterAll(() => builder.stop(id), 30_000);

    it('writes an upload that the shell then reads', { timeout: 30_000 }, async () => {
      const written = await builder.writeFile(
        id,
        '/srv/data/upload.txt',
        Readable.from(['héllo ', 'world\n']),
      );
      expect(written.size).toBe(Buffer.byteLength('héllo world\n'));
      expect(await builder.exists(id, '/srv/data/upload.txt')).toBe(true);
      await builder.writeFile(id, 'relative.txt', Readable.from(['in the workdir\n']));
      const term = await openTerm(id);
      term.run('cat /srv/data/upload.txt /relative.txt');
      await term.waitFor(/\r\nhéllo world\r\nin the workdir\r\n/);
      term.shell.close();
    });

    it.each([
      { path: '../escape', code: 'BAD_PATH' },
      { path: '/', code: 'BAD_PATH' },
      { path: '/etc', code: 'BAD_PATH' },
      { path: '/etc/passwd/inside', code: 'BAD_PATH' },
    ])('refuses an upload to $path with $code', { timeout: 30_000 }, async ({ path: p, code }) => {
      await expect(builder.writeFile(id, p, Readable.from(['x']))).rejects.toMatchObject({ code });
    });

    it('refuses an upload over maxBytes with TOO_LARGE before sending it', { timeout: 30_000 }, async () => {
      const error = await builder
        .writeFile(id, '/big.bin', Readable.from([Buffer.alloc(600), Buffer.alloc(600)]), { maxBytes: 1000 })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BuilderError);
      expect(error).toMatchObject({
        code: 'TOO_LARGE',
        message: 'the upload to /big.bin is larger than 1000 bytes',
      });
      expect(await builder.exists(id, '/big.bin')).toBe(false);
    });

    it.each([
      { path: '/etc/passwd', exists: true },
      { path: '/etc/nope', exists: false },
      { path: '/nope/deeper', exists: false },
      { path: 'etc', exists: true },
    ])('knows whether $path exists', { timeout: 30_000 }, async ({ path: p, exists }) => {
      expect(await builder.exists(id, p)).toBe(exists);
    });

    it('lists what was added and deleted since the start, sorted by path', { timeout: 60_000 }, async () => {
      const term = await openTerm(id);
      term.run('rm /etc/group && echo changed > /etc/hostname-note && rm -r /home && echo done-$((1+1))');
      await term.waitFor(/done-2/);
      term.shell.close();
      const changes = await builder.changes(id);
      expect(changes).toEqual([
        { path: '/etc/group', kind: 'deleted' },
        { path: '/etc/hostname-note', kind: 'added' },
        { path: '/home', kind: 'deleted' },
        { path: '/relative.txt', kind: 'added' },
        { path: '/srv', kind: 'added' },
        { path: '/srv/data', kind: 'added' },
        { path: '/srv/data/upload.txt', kind: 'added' },
      ]);
    });

    it(
      'commits one more layer, with the files and the whiteouts, to the registry',
      { timeout: 90_000 },
      async () => {
        const reference = `${registry.host}/team/saved:1`;
        const result = await builder.commit(id, { reference });
        expect(result.reference).toBe(`${reference}@${result.digest}`);
        const remote = new RegistryStore({ host: registry.host });
        const source = await resolveImage(remote, 'sandflow/busybox', 'latest', arch);
        const saved = await resolveImage(remote, 'team/saved', '1', arch);
        expect(saved.digest).toBe(result.digest);
        expect(saved.manifest.layers.map((l) => l.digest)).toEqual([
          ...source.manifest.layers.map((l) => l.digest),
          result.layer.digest,
        ]);
        // The new layer itself: the changes, their folders, and a whiteout per deletion.
        const names: string[] = [];
        const extract = tar.extract();
        extract.on('entry', (header, stream, next) => {
          names.push(header.name.replace(/\/$/, ''));
          stream.on('end', next).resume();
        });
        await pipeline(
          await remote.getBlob('team/saved', { digest: result.layer.digest }),
          zlib.createGunzip(),
          extract,
        );
        expect(names).toEqual([
          '.wh.home',
          'etc',
          'etc/.wh.group',
          'etc/hostname-note',
          'relative.txt',
          'srv',
          'srv/data',
          'srv/data/upload.txt',
        ]);
        // As a fresh process pulls it.
        const root = (
          await storeRootfsProvider({
            layout: new LayoutStore(path.join(tmp, 'pull')),
            cacheDir: path.join(tmp, 'pull-roots'),
          })(result.reference, arch)
        ).root;
        expect(fs.readFileSync(path.join(root, 'srv/data/upload.txt'), 'utf8')).toBe('héllo world\n');
        expect(fs.readFileSync(path.join(root, 'etc/hostname-note'), 'utf8')).toBe('changed\n');
        expect(fs.existsSync(path.join(root, 'etc/group'))).toBe(false);
        expect(fs.existsSync(path.join(root, 'home'))).toBe(false);
        expect(fs.readFileSync(path.join(root, 'etc/os-release'), 'utf8')).toMatch(/ID=sandflow-busybox/);
      },
    );

    it.each([
      { reference: `sandflow.local/acme/saved:1`, code: 'UNAVAILABLE', message: /saving needs a registry/ },
      { reference: `127.0.0.1:5000/x/y@sha256:${'0'.repeat(64)}`, code: 'BAD_PATH', message: /name a tag/ },
    ])('refuses to commit to $reference', async ({ reference, code, message }) => {
      await expect(builder.commit(id, { reference })).rejects.toMatchObject({
        code,
        message: expect.stringMatching(message),
      });
    });
  });

  describe('large files', () => {
    let id: string;
    beforeAll(async () => {
      id = (await startContainer()).id;
    }, 90_000);
    afterAll(() => builder.stop(id), 30_000);

    it(
      'uploads 12 MB and commits 40 MB byte for byte (the streams wait for each other)',
      { timeout: 120_000 },
      async () => {
        const upload = crypto.randomBytes(12 << 20);
        await builder.writeFile(
          id,
          '/data/upload.bin',
          Readable.from([upload.subarray(0, 5 << 20), upload.subarray(5 << 20)]),
        );
        const term = await openTerm(id);
        term.run(
          'dd if=/dev/urandom of=/data/made.bin bs=1048576 count=40 2>/dev/null && sha256sum /data/*.bin && echo sums-done',
        );
        const sums = await term.waitFor(
          /([0-9a-f]{64}) {2}\/data\/made\.bin\r\n([0-9a-f]{64}) {2}\/data\/upload\.bin\r\nsums-done/,
        );
        term.shell.close();
        expect(sums[2]).toBe(crypto.createHash('sha256').update(upload).digest('hex'));
        const result = await builder.commit(id, { reference: `${registry.host}/team/large:1` });
        const root = (
          await storeRootfsProvider({
            layout: new LayoutStore(path.join(tmp, 'pull-large')),
            cacheDir: path.join(tmp, 'pull-large-roots'),
          })(result.reference, arch)
        ).root;
        const hashOf = (p: string) =>
          crypto
            .createHash('sha256')
            .update(fs.readFileSync(path.join(root, p)))
            .digest('hex');
        expect(hashOf('data/made.bin')).toBe(sums[1]);
        expect(hashOf('data/upload.bin')).toBe(sums[2]);
      },
    );
  });

  describe('lifecycle', () => {
    it('stop deletes the Pod and ends its shells; unknown ids are a no-op', { timeout: 60_000 }, async () => {
      const { id } = await startContainer();
      const pod = (
        await core.listNamespacedPod({ namespace: NS, labelSelector: `sandflow.io/builder=${id}` })
      ).items[0]!;
      expect(pod.metadata?.annotations).toMatchObject({ 'sandflow.io/builder-owner': 'alice' });
      const term = await openTerm(id);
      const exited = new Promise<number>((resolve) => term.shell.onExit(resolve));
      term.run('sleep 100');
      await builder.stop(id);
      expect(await exited).not.toBe(0);
      await expect(
        core.readNamespacedPod({ name: pod.metadata!.name!, namespace: NS }),
      ).rejects.toMatchObject({
        code: 404,
      });
      expect(builder.get(id)).toBeUndefined();
      await builder.stop(id);
      await builder.stop('never-was');
      await expect(builder.exists(id, '/etc')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    });

    it('names the image it cannot find, before any Pod', async () => {
      await expect(startContainer({ image: `${registry.host}/sandflow/nope:1` })).rejects.toBeInstanceOf(
        ImageError,
      );
    });

    it(
      'turns a Pod whose image the cluster cannot pull into UNAVAILABLE naming it, and removes the Pod',
      { timeout: 60_000 },
      async () => {
        const broken = newBuilder({ helperImage: `${registry.host}/sandflow/no-helper:1` });
        try {
          const error = await broken
            .start({ image, architecture: arch, uid: 0, gid: 0, owner: 'alice', organization: 'acme' })
            .catch((e: unknown) => e);
          expect(error).toBeInstanceOf(BuilderError);
          expect(error).toMatchObject({
            code: 'UNAVAILABLE',
            message: expect.stringMatching(
              new RegExp(`could not run the image ${registry.host}/sandflow/no-helper:1: .*ErrImagePull`),
            ),
          });
          const left = await core.listNamespacedPod({ namespace: NS, labelSelector: 'sandflow.io/builder' });
          expect(left.items.filter((p) => !p.metadata?.deletionTimestamp)).toEqual([]);
        } finally {
          await broken.close();
        }
      },
    );
  });
});
