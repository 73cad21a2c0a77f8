import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyImage, pullImage, pushImage } from './copy.js';
import { LayoutStore } from './layout/store.js';
import { parseReference } from './reference.js';
import { RegistryStore } from './registry/store.js';
import { getImageConfig, resolveImage } from './store.js';
import { fixtureImage, fixtureIndex, pushFixture } from './testing/fixtures.js';
import { registryMissing, startRegistry, type TestRegistry } from './testing/registry.js';

const missing = registryMissing();
if (missing) console.warn(`copy tests skipped: ${missing}`);

describe.skipIf(missing)('copying images between a real registry and the layout', () => {
  let registry: TestRegistry;
  let remote: RegistryStore;
  let dir: string;
  let layout: LayoutStore;
  beforeAll(async () => {
    registry = await startRegistry();
    remote = new RegistryStore({ host: registry.host });
    dir = await mkdtemp(join(tmpdir(), 'sandflow-copy-'));
    layout = new LayoutStore(join(dir, 'images'));
  }, 30_000);
  afterAll(async () => {
    await registry?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('pulls one platform of a multi-platform image into the layout, and a second pull copies nothing', async () => {
    const amd = fixtureImage({ architecture: 'amd64', layerSizes: [300, 400] });
    const arm = fixtureImage({ architecture: 'arm64' });
    await pushFixture(remote, 'team/python', amd);
    await pushFixture(remote, 'team/python', arm);
    await remote.putManifest(
      'team/python',
      fixtureIndex([amd, arm], [{ architecture: 'amd64' }, { architecture: 'arm64' }]),
      '3.12',
    );

    const ref = parseReference(`${registry.host}/team/python:3.12`);
    const first = await pullImage(ref, layout, 'amd64');
    expect(first).toMatchObject({ digest: amd.manifest.digest, blobsCopied: 3 });
    const name = `${registry.host}/team/python`;
    expect(await layout.listTags(name)).toEqual(['3.12']);
    const local = await resolveImage(layout, name, '3.12', 'amd64');
    expect(local.digest).toBe(amd.manifest.digest);
    expect((await getImageConfig(layout, name, local.manifest)).architecture).toBe('amd64');
    for (const layer of amd.layers)
      expect(await buffer(await layout.getBlob(name, layer))).toEqual(amd.blobs.get(layer.digest));

    expect((await pullImage(ref, layout, 'amd64')).blobsCopied).toBe(0);
  });

  it('pushes a layout image to another repository, mounting blobs the registry already has', async () => {
    const image = fixtureImage({ layerSizes: [500] });
    await pushFixture(remote, 'base/os', image, '1');
    await copyImage({
      from: remote,
      fromRepository: 'base/os',
      reference: '1',
      to: layout,
      toRepository: 'docker.io/local/os',
      tag: '1',
    });

    const pushed = await pushImage(
      layout,
      parseReference('local/os:1'),
      parseReference(`${registry.host}/team/os:v2`),
    );
    expect(pushed.reference).toBe(`${registry.host}/team/os@${image.manifest.digest}`);
    expect(await remote.listTags('team/os')).toEqual(['v2']);
    expect((await remote.getManifest('team/os', 'v2')).bytes).toEqual(image.manifest.bytes);

    const mounted = await copyImage({
      from: layout,
      fromRepository: 'docker.io/local/os',
      reference: '1',
      to: remote,
      toRepository: 'team/mounted',
      tag: 'm',
      mountFrom: 'base/os',
    });
    expect(mounted.blobsCopied).toBe(0);
    expect((await remote.getManifest('team/mounted', 'm')).digest).toBe(image.manifest.digest);
  });

  it('copies a whole index when no platform is asked for', async () => {
    const amd = fixtureImage({ architecture: 'amd64' });
    const arm = fixtureImage({ architecture: 'arm64' });
    await pushFixture(layout, 'x/multi', amd);
    await pushFixture(layout, 'x/multi', arm);
    const index = fixtureIndex([amd, arm], [{ architecture: 'amd64' }, { architecture: 'arm64' }]);
    await layout.putManifest('x/multi', index, 'all');
    await copyImage({
      from: layout,
      fromRepository: 'x/multi',
      reference: 'all',
      to: remote,
      toRepository: 'x/multi',
      tag: 'all',
    });
    expect((await resolveImage(remote, 'x/multi', 'all', 'arm')).digest).toBe(arm.manifest.digest);
    expect((await resolveImage(remote, 'x/multi', 'all', 'amd64')).digest).toBe(amd.manifest.digest);
  });
});
