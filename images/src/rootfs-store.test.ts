// The store-backed rootfs provider against Debian's real docker-registry: the busybox-static image
// is pushed there, then pulled into a layout and unpacked through the provider.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyImage } from './copy.js';
import { LayoutStore } from './layout/store.js';
import { RegistryStore } from './registry/store.js';
import {
  buildBusyboxImage,
  BUSYBOX_OS_RELEASE,
  BUSYBOX_REFERENCE,
  findBusyboxStatic,
} from './rootfs-busybox.js';
import { machineArchitecture } from './rootfs.js';
import { storeRootfsProvider } from './rootfs-store.js';
import {
  fixtureImage,
  type FixtureImage,
  fixtureIndex,
  freePort,
  pushFixture,
  registryMissing,
  startRegistry,
  type TestRegistry,
} from './testing/index.js';

const skip = registryMissing() ?? (findBusyboxStatic() ? undefined : 'busybox-static is not installed');
if (skip) console.warn(`store rootfs provider tests skipped: ${skip}`);

/** Builds the busybox image and pushes it to `registry` as sandflow/busybox:latest. */
async function pushBusybox(registry: TestRegistry, dir: string): Promise<string> {
  const built = await buildBusyboxImage(dir);
  const [repository, tag] = BUSYBOX_REFERENCE.split(':') as [string, string];
  await copyImage({
    from: new LayoutStore(built.oci),
    fromRepository: repository,
    reference: tag,
    to: new RegistryStore({ host: registry.host }),
    toRepository: repository,
    tag,
  });
  return `${registry.host}/${BUSYBOX_REFERENCE}`;
}

const otherArch = machineArchitecture() === 'amd64' ? 'arm' : 'amd64';

describe.skipIf(skip)('storeRootfsProvider', () => {
  let registry: TestRegistry;
  let tmp: string;
  let image: string;
  let multi: string;
  let pinnedIndex: string;
  const provider = () =>
    storeRootfsProvider({
      layout: new LayoutStore(path.join(tmp, 'images')),
      cacheDir: path.join(tmp, 'roots'),
    });

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sandflow-rootfs-store-'));
    registry = await startRegistry();
    image = await pushBusybox(registry, path.join(tmp, 'built'));
    // An index holding only this machine's platform (the layers are never unpacked here).
    const store = new RegistryStore({ host: registry.host });
    const only = fixtureImage({ architecture: machineArchitecture() });
    await pushFixture(store, 'sandflow/multi', only);
    const index = fixtureIndex([only], [{ architecture: machineArchitecture() }]);
    await store.putManifest('sandflow/multi', index, '1');
    multi = `${registry.host}/sandflow/multi:1`;
  }, 60_000);
  afterAll(async () => {
    // The last test stops it already (a second stop would wait for an exit that has happened).
    await registry?.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('pulls the image into the layout and answers its unpacked root and config, once for concurrent calls', async () => {
    const get = provider();
    const [a, b] = await Promise.all([get(image, machineArchitecture()), get(image, machineArchitecture())]);
    expect(b).toBe(a);
    expect(fs.readFileSync(path.join(a.root, 'etc/os-release'), 'utf8')).toBe(BUSYBOX_OS_RELEASE);
    expect(a.config).toMatchObject({
      Cmd: ['/bin/sh'],
      WorkingDir: '/',
      Env: [expect.stringMatching(/^PATH=/)],
    });
    const layout = new LayoutStore(path.join(tmp, 'images'));
    expect(await layout.listTags(`${registry.host}/sandflow/busybox`)).toEqual(['latest']);
  });

  it.each([
    {
      what: 'a missing tag',
      ref: () => image.replace(/:latest$/, ':nope'),
      arch: machineArchitecture(),
      error: /pulling .*sandflow\/busybox:nope \(\w+\) failed: .*no such image or tag/,
      code: 'NOT_FOUND',
    },
    {
      what: 'a wrong architecture',
      ref: () => image,
      arch: otherArch,
      error: /sandflow\/busybox:latest has no linux\/(arm64|amd64) image \(it has linux\//,
      code: 'PLATFORM_NOT_FOUND',
    },
    {
      what: 'an index without the architecture',
      ref: () => multi,
      arch: otherArch,
      error:
        /pulling .*sandflow\/multi:1 \(\w+\) failed: .*has no linux\/(arm64|amd64) image \(it has linux\//,
      code: 'PLATFORM_NOT_FOUND',
    },
  ])('names the image and the cause for $what', async ({ ref, arch, error, code }) => {
    const failure = provider()(ref(), arch);
    await expect(failure).rejects.toThrow(error);
    await expect(failure).rejects.toMatchObject({ code });
  });

  it('pulls an image named by the digest of an index and finds it again by that digest', async () => {
    const store = new RegistryStore({ host: registry.host });
    const manifest = await store.getManifest('sandflow/busybox', 'latest');
    const index = fixtureIndex([{ manifest } as FixtureImage], [{ architecture: machineArchitecture() }]);
    await store.putManifest('sandflow/busybox', index);
    const pinned = `${registry.host}/sandflow/busybox@${index.digest}`;
    const first = await provider()(pinned, machineArchitecture());
    expect(fs.readFileSync(path.join(first.root, 'etc/os-release'), 'utf8')).toBe(BUSYBOX_OS_RELEASE);
    pinnedIndex = pinned;
  });

  it('answers from the layout with the registry down, and names the registry for an image it never pulled', async () => {
    await registry.stop();
    for (const ref of [image, pinnedIndex]) {
      const again = await provider()(ref, machineArchitecture());
      expect(fs.readFileSync(path.join(again.root, 'etc/os-release'), 'utf8')).toBe(BUSYBOX_OS_RELEASE);
    }
    const down = `127.0.0.1:${await freePort()}/sandflow/absent:1`;
    await expect(provider()(down, machineArchitecture())).rejects.toMatchObject({
      code: 'UNREACHABLE',
      message: expect.stringContaining(`pulling ${down}`),
    });
  });
});
