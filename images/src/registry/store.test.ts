import { createServer, type AddressInfo, type Socket } from 'node:net';
import { buffer } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, registryMissing, startRegistry, type TestRegistry } from '../testing/registry.js';
import { registryFor } from '../copy.js';
import { credentialsFromSecret } from '../credentials.js';
import { ImageError } from '../errors.js';
import { parseReference } from '../reference.js';
import { getImageConfig, resolveImage } from '../store.js';
import { blobOf, fixtureImage, fixtureIndex, pushFixture } from '../testing/fixtures.js';
import { RegistryStore } from './store.js';

const missing = registryMissing({ auth: true });
if (missing) console.warn(`registry tests skipped: ${missing}`);

describe.skipIf(missing)('RegistryStore against a real docker-registry', () => {
  let registry: TestRegistry;
  let store: RegistryStore;
  beforeAll(async () => {
    registry = await startRegistry();
    store = new RegistryStore({ host: registry.host, chunkSize: 64 * 1024 });
  }, 30_000);
  afterAll(() => registry?.stop());

  it.each([
    ['OCI', false],
    ['Docker v2 schema 2', true],
  ])('pushes and pulls an image back (%s): blobs, manifest, tags', async (_name, docker) => {
    const repo = `round/${docker ? 'docker' : 'oci'}`;
    const image = fixtureImage({ docker, layerSizes: [100, 2000] });
    const digest = await pushFixture(store, repo, image, 'v1');
    expect(digest).toBe(image.manifest.digest);
    expect(await store.listTags(repo)).toEqual(['v1']);
    const got = await store.getManifest(repo, 'v1');
    expect(got).toEqual(image.manifest);
    for (const [d, bytes] of image.blobs) {
      expect(await buffer(await store.getBlob(repo, { digest: d, size: bytes.length }))).toEqual(bytes);
    }
    const resolved = await resolveImage(store, repo, digest, 'amd64');
    expect((await getImageConfig(store, repo, resolved.manifest)).config?.Cmd).toEqual(['sh']);
  });

  it('selects the platform from a multi-platform index; arm means arm64', async () => {
    const amd = fixtureImage({ architecture: 'amd64' });
    const arm = fixtureImage({ architecture: 'arm64' });
    await pushFixture(store, 'multi/app', amd);
    await pushFixture(store, 'multi/app', arm);
    const index = fixtureIndex(
      [amd, arm],
      [{ architecture: 'amd64' }, { architecture: 'arm64', variant: 'v8' }],
    );
    await store.putManifest('multi/app', index, 'latest');
    const forArm = await resolveImage(store, 'multi/app', 'latest', 'arm');
    expect(forArm.digest).toBe(arm.manifest.digest);
    expect(forArm.index?.digest).toBe(index.digest);
    expect((await resolveImage(store, 'multi/app', 'latest', 'amd64')).digest).toBe(amd.manifest.digest);
  });

  it('names the image and the platforms it has when none matches', async () => {
    const arm = fixtureImage({ architecture: 'arm64' });
    await pushFixture(store, 'armonly/app', arm);
    await store.putManifest('armonly/app', fixtureIndex([arm], [{ architecture: 'arm64' }]), '1.0');
    const error = await resolveImage(store, 'armonly/app', '1.0', 'amd64', 'armonly/app:1.0').catch((e) => e);
    expect(error).toBeInstanceOf(ImageError);
    expect(error.code).toBe('PLATFORM_NOT_FOUND');
    expect(error.message).toBe('armonly/app:1.0 has no linux/amd64 image (it has linux/arm64)');
  });

  it('uploads a large blob in PATCH chunks', async () => {
    const image = fixtureImage({ layerSizes: [64 * 1024 * 3 + 17] });
    await pushFixture(store, 'chunked/app', image, 'big');
    const layer = image.layers[0]!;
    const back = await buffer(await store.getBlob('chunked/app', layer));
    expect(back.length).toBe(layer.size);
    expect(back).toEqual(image.blobs.get(layer.digest));
  });

  it('mounts a blob from another repository instead of uploading it', async () => {
    const bytes = Buffer.from('shared layer ' + Math.random());
    await store.putBlob('mount/source', blobOf(bytes));
    let opened = 0;
    const blob = { ...blobOf(bytes), open: () => (opened++, blobOf(bytes).open()) };
    await store.putBlob('mount/target', blob, { mountFrom: 'mount/source' });
    expect(opened).toBe(0);
    expect(await store.hasBlob('mount/target', blob.digest)).toBe(true);
  });

  it.each([
    ['a missing tag', 'round/oci', 'nope', 'NOT_FOUND', /round\/oci:nope: no such image or tag/],
    ['a missing repository', 'never/pushed', 'latest', 'NOT_FOUND', /never\/pushed:latest/],
  ])('%s is a typed error naming the image', async (_name, repo, tag, code, message) => {
    const error = await store.getManifest(repo, tag).catch((e) => e);
    expect(error).toMatchObject({ code });
    expect(error.message).toMatch(message);
  });

  it('a manifest whose blobs are absent is refused by the registry with the image named', async () => {
    const image = fixtureImage();
    const error = await store.putManifest('orphans/app', image.manifest, 'x').catch((e) => e);
    expect(error).toBeInstanceOf(ImageError);
    expect(error.message).toContain('orphans/app');
  });
});

describe.skipIf(missing)('RegistryStore with htpasswd auth', () => {
  let registry: TestRegistry;
  beforeAll(async () => {
    registry = await startRegistry({ users: { alice: 's3cret' } });
  }, 30_000);
  afterAll(() => registry?.stop());

  it('accepts the right credentials for push and pull', async () => {
    const store = new RegistryStore({
      host: registry.host,
      credentials: { username: 'alice', password: 's3cret' },
    });
    const image = fixtureImage();
    await pushFixture(store, 'private/app', image, 'v1');
    expect((await store.getManifest('private/app', 'v1')).digest).toBe(image.manifest.digest);
  });

  it('finds the credentials for the host in a kubernetes.io/dockerconfigjson Secret', async () => {
    const config = {
      auths: { [`http://${registry.host}`]: { auth: Buffer.from('alice:s3cret').toString('base64') } },
    };
    const credentials = credentialsFromSecret({
      type: 'kubernetes.io/dockerconfigjson',
      metadata: { name: 'regcred', namespace: 'org-a' },
      data: { '.dockerconfigjson': Buffer.from(JSON.stringify(config)).toString('base64') },
    });
    const ref = parseReference(`${registry.host}/private/app:v1`);
    expect(await registryFor(ref, credentials).listTags(ref.repository)).toEqual(['v1']);
  });

  it.each([
    ['wrong password', { username: 'alice', password: 'nope' }, /refused the credentials/],
    ['no credentials', undefined, /requires credentials and none are configured/],
  ])('refuses %s with UNAUTHORIZED naming the image', async (_name, credentials, message) => {
    const store = new RegistryStore({ host: registry.host, ...(credentials ? { credentials } : {}) });
    const error = await store.getManifest('private/app', 'v1').catch((e) => e);
    expect(error).toMatchObject({ code: 'UNAUTHORIZED' });
    expect(error.message).toMatch(message);
    expect(error.message).toContain('private/app:v1');
  });
});

describe('RegistryStore and a registry that is down', () => {
  it('is UNREACHABLE within the timeout when the registry accepts but never answers', async () => {
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => void sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const host = `127.0.0.1:${(silent.address() as AddressInfo).port}`;
    try {
      const store = new RegistryStore({ host, timeoutMs: 300 });
      const error = await store.listTags('team/app').catch((e) => e);
      expect(error).toMatchObject({ code: 'UNREACHABLE' });
      expect(error.message).toBe(
        `${host}/team/app: the registry ${host} cannot be reached (no answer in 300 ms)`,
      );
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('is UNREACHABLE, naming the image and the cause', async () => {
    const host = `127.0.0.1:${await freePort()}`;
    const store = new RegistryStore({ host, timeoutMs: 2_000 });
    const error = await store.getManifest('library/python', '3.12-slim').catch((e) => e);
    expect(error).toMatchObject({ code: 'UNREACHABLE' });
    expect(error.message).toBe(
      `${host}/library/python:3.12-slim: the registry ${host} cannot be reached (ECONNREFUSED)`,
    );
  });
});

describe.skipIf(missing)('RegistryStore with a bearer token service', () => {
  let registry: TestRegistry;
  beforeAll(async () => {
    registry = await startRegistry({ token: { users: { ci: 'robot-pass' } } });
  }, 30_000);
  afterAll(() => registry?.stop());

  it('answers the Bearer challenge, then reuses the token until it expires', async () => {
    const store = new RegistryStore({
      host: registry.host,
      credentials: { username: 'ci', password: 'robot-pass' },
    });
    const image = fixtureImage();
    await pushFixture(store, 'tokens/app', image, 'v1');
    await store.getManifest('tokens/app', 'v1');
    const issued = registry.tokens!.issued;
    expect(issued).toBeGreaterThan(0);
    await store.getManifest('tokens/app', 'v1');
    expect(await store.listTags('tokens/app')).toEqual(['v1']);
    expect(registry.tokens!.issued).toBe(issued);
  });

  it('mounts across repositories with a token scoped to both', async () => {
    const store = new RegistryStore({
      host: registry.host,
      credentials: { username: 'ci', password: 'robot-pass' },
    });
    const bytes = Buffer.from('token mount ' + Math.random());
    await store.putBlob('tokens/a', blobOf(bytes));
    let opened = 0;
    await store.putBlob(
      'tokens/b',
      { ...blobOf(bytes), open: () => (opened++, blobOf(bytes).open()) },
      { mountFrom: 'tokens/a' },
    );
    expect(opened).toBe(0);
    expect(await store.hasBlob('tokens/b', blobOf(bytes).digest)).toBe(true);
  });

  it('says credentials are needed when an anonymous token is not enough', async () => {
    const store = new RegistryStore({ host: registry.host });
    const error = await store.getManifest('tokens/app', 'v1').catch((e) => e);
    expect(error).toMatchObject({ code: 'UNAUTHORIZED' });
    expect(error.message).toBe(
      `${registry.host}/tokens/app:v1: ${registry.host} requires credentials and none are configured`,
    );
  });

  it('reports the token service refusing the credentials, naming the image', async () => {
    const store = new RegistryStore({
      host: registry.host,
      credentials: { username: 'ci', password: 'wrong' },
    });
    const error = await store.getManifest('tokens/app', 'v1').catch((e) => e);
    expect(error).toMatchObject({ code: 'UNAUTHORIZED' });
    expect(error.message).toBe(
      `${registry.host}/tokens/app:v1: the token service of ${registry.host} refused the credentials (HTTP 401)`,
    );
  });
});
