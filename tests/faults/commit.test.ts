// Issue 19 §3 faults: kill -9 of the platform process (`npm start`'s entry, the bwrap runtime and
// its sandbox builder) while Save commits a builder container into a sandbox, at seeded points;
// then started again on the same data folder. The sandbox is at its old version or the new one,
// never half: its image reference resolves in the local image layout with a whole manifest and
// every blob (digests checked), the Sandbox resource and the API's answer agree, and the files in
// it are those of that version. The crashed builder container is reaped at start (folder and
// processes), and a new save after the restart succeeds.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  BUSYBOX_REFERENCE,
  LayoutStore,
  buildBusyboxImage,
  copyImage,
  layoutName,
  parseReference,
  resolveImage,
} from '@sandflow/images';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builderMissing, openTerminal } from '../sandbox-builder/platform.js';
import { boot, killHard, seeded, sleep, until, type Started } from './support.js';

const sh = promisify(execFile);
const missing = builderMissing();
if (missing) console.warn(`kill -9 during a sandbox commit skipped: ${missing} not installed`);

const ROUNDS = 4;
const ORG = 'Faults Commit';
/** The source image, in the data folder's image layout (no registry: the embedded, offline path). */
const SOURCE = { image: 'sandflow.local/base/busybox', version: '1.36' };
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sandflow-faults-commit-'));
const dataDir = path.join(tmp, 'data');
let s: Started;

async function restart() {
  await killHard(s.platform);
  s = await bootBwrap();
  await s.client.signIn(ORG);
}
const bootBwrap = () => boot(dataDir, { SANDFLOW_RUNTIME: 'bwrap' });

beforeAll(async () => {
  if (missing) return;
  // The busybox image from Debian's busybox-static, put where the builder looks first.
  const built = await buildBusyboxImage(path.join(tmp, 'busybox'));
  const [repository, tag] = BUSYBOX_REFERENCE.split(':') as [string, string];
  await copyImage({
    from: new LayoutStore(built.oci),
    fromRepository: repository,
    reference: tag,
    to: new LayoutStore(path.join(dataDir, 'images')),
    toRepository: SOURCE.image,
    tag: SOURCE.version,
  });
  s = await bootBwrap();
  await s.client.signIn();
  await s.client.must('POST', '/organizations', {
    name: ORG,
    admins: [],
    quota: { cpu: 0, memory: 0, disk: 0 },
  });
  await s.client.signIn(ORG);
}, 300_000);
afterAll(async () => {
  if (s) await killHard(s.platform);
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** Uploads `name` (multipart, as the sandbox page does) into the container's working folder. */
async function upload(container: string, name: string, content: string) {
  const form = new FormData();
  form.append('file', new Blob([content]), name);
  const res = await fetch(`${s.platform.url}/api/v0/container/${container}/archive`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${s.client.token}` },
    body: form,
    signal: AbortSignal.timeout(30_000),
  });
  expect(res.status, await res.clone().text()).toBe(200);
}

const exists = async (container: string, name: string) =>
  s.client.must<boolean>('POST', `/container/${container}/archive`, { name });

const form = (container: string) => ({
  name: 'greeter',
  version: '1.0.0',
  entrypoint: 'sh hello.sh',
  constraints: { cpu: 500, memory: 512, disk: 100 },
  source_image: SOURCE,
  container_id: container,
});

/** The builder containers on disk and the processes (bwrap shells) still running in one. */
function builderLeftovers() {
  const dirs = fs.existsSync(path.join(dataDir, 'builders'))
    ? fs.readdirSync(path.join(dataDir, 'builders'))
    : [];
  const processes: string[] = [];
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    let cmdline = '';
    try {
      cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
    } catch {
      continue; // gone meanwhile
    }
    if (cmdline.includes(path.join(dataDir, 'builders'))) processes.push(`${pid}: ${cmdline.slice(0, 200)}`);
  }
  return { dirs, processes };
}

/** The reference is whole in the layout: its manifest, config and every layer, digests checked. */
async function checkWhole(ref: string) {
  const parsed = parseReference(ref);
  expect(parsed.digest, ref).toMatch(/^sha256:[a-f0-9]{64}$/);
  const layout = new LayoutStore(path.join(dataDir, 'images'));
  const repository = layoutName(parsed);
  const image = await resolveImage(layout, repository, parsed.digest!, 'amd64', ref);
  const blobs = [image.manifest.config, ...image.manifest.layers];
  for (const blob of blobs) {
    // getBlob verifies the digest and size as the bytes are read.
    const stream = await layout.getBlob(repository, blob);
    let size = 0;
    for await (const chunk of stream) size += (chunk as Buffer).length;
    expect(size).toBe(blob.size);
  }
  return image.manifest.layers.length;
}

/** The digest the layout's index tags `ref`'s name:tag with now. */
function taggedDigest(ref: string): string | undefined {
  const parsed = parseReference(ref);
  const name = `${layoutName(parsed)}:${parsed.tag}`;
  const index = JSON.parse(fs.readFileSync(path.join(dataDir, 'images', 'index.json'), 'utf8')) as {
    manifests: { digest: string; annotations?: Record<string, string> }[];
  };
  return index.manifests.find((m) => m.annotations?.['org.opencontainers.image.ref.name'] === name)?.digest;
}

/** Scratch files a crash left in the layout's ingest folder (never renamed into blobs/). */
const ingestLeftovers = () => fs.readdirSync(path.join(dataDir, 'images', '.ingest')).length;

/** The Sandbox resource as kubectl reads it from kube-lite. */
async function resourceRef(uuid: string): Promise<string | undefined> {
  const org = await s.client.must<{ slug: string }>('GET', '/organization');
  const { stdout } = await sh(
    'kubectl',
    ['get', 'sandboxes.sandflow.io', uuid, '-n', `sf-${org.slug}`, '-o', 'json'],
    { env: { ...process.env, KUBECONFIG: path.join(dataDir, 'kubeconfig') }, timeout: 60_000 },
  );
  return (JSON.parse(stdout) as { spec: { image?: { ref?: string } } }).spec.image?.ref;
}

describe.skipIf(!!missing)('kill -9 of the platform process during a sandbox commit', () => {
  it(
    `at ${ROUNDS} seeded points: old or new version, never half; the builder reaped; a later save succeeds`,
    { timeout: 900_000 },
    async () => {
      const random = seeded(1919);
      // Version 1: a container from busybox with hello.sh, saved into a new sandbox.
      const first = await s.client.must<string>('POST', '/image', {
        source_image: SOURCE.image,
        source_version: SOURCE.version,
        name: 'greeter',
      });
      await upload(first, 'hello.sh', 'echo hello\n');
      const began = Date.now();
      const created = await s.client.must<{ uuid: string; image_ref: string }>(
        'POST',
        '/sandbox',
        form(first),
      );
      const saveMs = Date.now() - began;
      const uuid = created.uuid;
      let current = created.image_ref;
      await checkWhole(current);
      const present = ['hello.sh'];
      const outcomes: string[] = [];

      for (let round = 0; round < ROUNDS; round++) {
        // A container from the saved sandbox, a new file, a shell open in it, and Save.
        const container = await s.client.must<string>('POST', `/image/${uuid}`, { sandbox_name: 'greeter' });
        const marker = `round-${round}.txt`;
        // Rounds 0 and 1 wait for a point inside the save: a file big enough (12 MiB that gzip cannot
        // shrink) keeps the layer being written long enough to be seen even on a loaded machine.
        await upload(
          container,
          marker,
          round < 2 ? randomBytes(9 << 20).toString('base64') : `round ${round}\n`,
        );
        const term = await openTerminal(new URL(s.platform.url).host, container, s.client.token);
        term.run('sleep 3600');
        expect(builderLeftovers().processes.length).toBeGreaterThan(0);
        let acknowledged: string | undefined;
        let settled = false;
        const save = s.client
          .call<{ image_ref: string }>('PUT', `/sandbox/${uuid}`, form(container))
          .then((a) => {
            if (a.status === 200) acknowledged = a.body!.result.image_ref;
          })
          .catch(() => undefined) // the connection went with the process
          .finally(() => (settled = true));
        // Round 0 dies as soon as the commit's layer is being written, round 1 as soon as the
        // layout's tag names the new manifest (before the Sandbox records it), the others at
        // seeded delays across twice the length of a save.
        const layerStarted = () =>
          fs.readdirSync(path.join(dataDir, 'builders', container)).some((f) => f.startsWith('layer-'));
        // A save that ends before the point is seen (it should not, with that file) still checks
        // that an acknowledged save is kept.
        if (round === 0)
          await until(() => layerStarted() || settled, 60_000, 'the layer is being written', 5);
        else if (round === 1)
          await until(
            () => taggedDigest(current) !== parseReference(current).digest || settled,
            60_000,
            'the tag moves',
            5,
          );
        else await sleep(Math.floor(random() * saveMs * 2));
        await killHard(s.platform);
        await save;
        term.socket.terminate();

        // The builder's shells die with the process's terminal; its folder goes at the next start.
        await until(
          () => builderLeftovers().processes.length === 0,
          30_000,
          () => builderLeftovers().processes.join('\n'),
        );
        await restart();
        expect(builderLeftovers(), 'the crashed builder container was reaped at start').toEqual({
          dirs: [],
          processes: [],
        });

        const read = await s.client.must<{ image_ref: string }>('GET', `/sandbox/${uuid}`);
        expect(await resourceRef(uuid), 'the Sandbox resource and the API agree').toBe(read.image_ref);
        const layers = await checkWhole(read.image_ref);
        const moved = read.image_ref !== current;
        // An acknowledged save is never lost; otherwise old or new, whichever it reached.
        if (acknowledged) expect(read.image_ref).toBe(acknowledged);
        // The files are exactly those of the version it points at.
        const check = await s.client.must<string>('POST', `/image/${uuid}`, { sandbox_name: 'greeter' });
        for (const name of present) expect(await exists(check, name), name).toBe(true);
        expect(await exists(check, marker), `${marker} in ${read.image_ref}`).toBe(moved);
        await s.client.must('DELETE', `/image/${check}`);
        if (moved) present.push(marker);
        current = read.image_ref;
        outcomes.push(
          `${moved ? 'new' : 'old'}${acknowledged ? ' (acknowledged)' : ''}, ${layers} layers, ` +
            `${ingestLeftovers()} scratch file(s) in .ingest`,
        );
      }

      // And Save works after the crashes.
      const after = await s.client.must<string>('POST', `/image/${uuid}`, { sandbox_name: 'greeter' });
      await upload(after, 'after.txt', 'after the crashes\n');
      const saved = await s.client.must<{ image_ref: string }>('PUT', `/sandbox/${uuid}`, form(after));
      expect(saved.image_ref).not.toBe(current);
      await checkWhole(saved.image_ref);
      expect(await resourceRef(uuid)).toBe(saved.image_ref);
      await s.client.must('DELETE', `/image/${after}`);
      const check = await s.client.must<string>('POST', `/image/${uuid}`, { sandbox_name: 'greeter' });
      for (const name of [...present, 'after.txt']) expect(await exists(check, name), name).toBe(true);
      await s.client.must('DELETE', `/image/${check}`);
      console.info(`kill -9 during sandbox commits (a save takes ${saveMs} ms): ${outcomes.join('; ')}`);
    },
  );
});
