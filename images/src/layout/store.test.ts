import { mkdir, mkdtemp, readFile, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sha256Digest } from '../digest.js';
import { resolveImage } from '../store.js';
import { fixtureImage, fixtureIndex, pushFixture } from '../testing/fixtures.js';
import { INGEST_LEFTOVER_AGE_MS, LayoutStore, REF_NAME, defaultLayoutDir } from './store.js';

describe('LayoutStore', () => {
  let root: string;
  let store: LayoutStore;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'sandflow-layout-'));
    store = new LayoutStore(join(root, 'images'));
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it('is a standard OCI image layout: oci-layout, index.json with ref.name annotations, blobs/sha256', async () => {
    const image = fixtureImage({ layerSizes: [10, 20] });
    await pushFixture(store, 'docker.io/library/python', image, '3.12-slim');
    const dir = join(root, 'images');
    expect(JSON.parse(await readFile(join(dir, 'oci-layout'), 'utf8'))).toEqual({
      imageLayoutVersion: '1.0.0',
    });
    const index = JSON.parse(await readFile(join(dir, 'index.json'), 'utf8'));
    expect(index).toMatchObject({ schemaVersion: 2, mediaType: 'application/vnd.oci.image.index.v1+json' });
    expect(index.manifests).toEqual([
      {
        mediaType: image.manifest.mediaType,
        digest: image.manifest.digest,
        size: image.manifest.bytes.length,
        annotations: {
          [REF_NAME]: 'docker.io/library/python:3.12-slim',
          'io.containerd.image.name': 'docker.io/library/python:3.12-slim',
        },
      },
    ]);
    // Every blob is named by the sha256 of its content, as skopeo and umoci expect.
    const names = await readdir(join(dir, 'blobs', 'sha256'));
    expect(names).toHaveLength(image.blobs.size + 1);
    for (const name of names) {
      expect(sha256Digest(await readFile(join(dir, 'blobs', 'sha256', name)))).toBe(`sha256:${name}`);
    }
  });

  it('lists tags per repository, retags in place and reads manifests by tag or digest', async () => {
    const a = fixtureImage();
    const b = fixtureImage();
    await pushFixture(store, 'docker.io/library/python', a, '3.12');
    await pushFixture(store, 'docker.io/library/python', b, '3.13');
    await pushFixture(store, 'docker.io/library/python/extra', a, 'x');
    await pushFixture(store, 'docker.io/library/python', b, '3.12');
    expect((await store.listTags('docker.io/library/python')).sort()).toEqual(['3.12', '3.13']);
    expect((await store.getManifest('docker.io/library/python', '3.12')).digest).toBe(b.manifest.digest);
    expect(await store.getManifest('any', a.manifest.digest)).toEqual(a.manifest);
  });

  it('keeps every tag when several stores of one process write the same folder at once', async () => {
    // The runner, the builder and the API each hold their own LayoutStore on $SANDFLOW_DATA_DIR/images.
    const stores = [store, new LayoutStore(join(root, 'images')), new LayoutStore(join(root, 'images', '.'))];
    const tags = Array.from({ length: 12 }, (_, i) => `t${i}`);
    await Promise.all(
      tags.map((tag, i) => pushFixture(stores[i % 3]!, 'docker.io/library/busybox', fixtureImage(), tag)),
    );
    expect((await store.listTags('docker.io/library/busybox')).sort()).toEqual([...tags].sort());
  });

  it('selects the platform from an index it holds', async () => {
    const amd = fixtureImage({ architecture: 'amd64' });
    const arm = fixtureImage({ architecture: 'arm64' });
    await pushFixture(store, 'r/app', amd);
    await pushFixture(store, 'r/app', arm);
    await store.putManifest(
      'r/app',
      fixtureIndex([amd, arm], [{ architecture: 'amd64' }, { architecture: 'arm64' }]),
      '1',
    );
    expect((await resolveImage(store, 'r/app', '1', 'arm')).digest).toBe(arm.manifest.digest);
  });

  it('refuses a blob whose content does not match its digest and leaves nothing behind', async () => {
    const good = Buffer.from('good');
    const error = await store
      .putBlob('r/app', {
        digest: sha256Digest(good),
        size: 4,
        open: () => Readable.from([Buffer.from('evil')]),
      })
      .catch((e) => e);
    expect(error).toMatchObject({ code: 'DIGEST_MISMATCH' });
    expect(error.message).toContain(sha256Digest(good));
    expect(await store.hasBlob('r/app', sha256Digest(good))).toBe(false);
    expect(await readdir(join(root, 'images', 'blobs', 'sha256'))).toEqual([]);
    expect(await readdir(join(root, 'images', '.ingest'))).toEqual([]);
  });

  it('removes what a crashed writer left in .ingest at its first write, not what another process is writing', async () => {
    const ingest = join(root, 'images', '.ingest');
    await mkdir(ingest, { recursive: true });
    const old = (Date.now() - INGEST_LEFTOVER_AGE_MS - 60_000) / 1000;
    for (const name of ['half-a-blob', 'index-crashed.json']) {
      await writeFile(join(ingest, name), 'partial');
      await utimes(join(ingest, name), old, old);
    }
    // A recent scratch file: another process may be writing it right now.
    await writeFile(join(ingest, 'being-written'), 'partial');

    expect(await store.listTags('r/app')).toEqual([]); // reads leave the folder alone
    expect((await readdir(ingest)).sort()).toEqual(['being-written', 'half-a-blob', 'index-crashed.json']);
    await pushFixture(store, 'r/app', fixtureImage(), 'v1');
    expect(await readdir(ingest)).toEqual(['being-written']);
    expect(await store.listTags('r/app')).toEqual(['v1']);
  });

  it('serves blobs verified and says NOT_FOUND with the image named for a missing tag', async () => {
    const image = fixtureImage();
    await pushFixture(store, 'r/app', image, 'v1');
    const layer = image.layers[0]!;
    expect(await buffer(await store.getBlob('r/app', layer))).toEqual(image.blobs.get(layer.digest));
    await expect(store.getManifest('r/app', 'v2')).rejects.toThrow(
      expect.objectContaining({
        code: 'NOT_FOUND',
        message: `r/app:v2: not in the image store ${join(root, 'images')}`,
      }),
    );
  });

  it('lives in $SANDFLOW_DATA_DIR/images by default', () => {
    expect(defaultLayoutDir({ SANDFLOW_DATA_DIR: '/var/lib/sandflow' })).toBe('/var/lib/sandflow/images');
  });
});
