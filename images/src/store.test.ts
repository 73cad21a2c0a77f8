import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LayoutStore } from './layout/store.js';
import type { Platform } from './media-types.js';
import { resolveImage, type Architecture } from './store.js';
import { fixtureImage, fixtureIndex, pushFixture } from './testing/fixtures.js';

type Entry = Omit<Platform, 'os'> & { os?: string };

describe('resolveImage picks the sandbox architecture out of an index', () => {
  let dir: string;
  let store: LayoutStore;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sandflow-platform-'));
    store = new LayoutStore(dir);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  async function indexOf(tag: string, entries: Entry[]) {
    const images = entries.map((e) => fixtureImage({ architecture: e.architecture }));
    for (const image of images) await pushFixture(store, 'p/app', image);
    await store.putManifest('p/app', fixtureIndex(images, entries as Platform[]), tag);
    return images;
  }

  it.each<[string, Entry[], Architecture, number]>([
    [
      'amd64 among several',
      [{ architecture: 'arm', variant: 'v7' }, { architecture: 'amd64' }, { architecture: 'arm64' }],
      'amd64',
      1,
    ],
    [
      'arm is arm64, not 32-bit arm',
      [
        { architecture: 'arm', variant: 'v7' },
        { architecture: 'arm64', variant: 'v8' },
      ],
      'arm',
      1,
    ],
    ['arm64 without a variant', [{ architecture: 'amd64' }, { architecture: 'arm64' }], 'arm', 1],
    ['linux only', [{ architecture: 'amd64', os: 'windows' }, { architecture: 'amd64' }], 'amd64', 1],
  ])('%s', async (name, entries, arch, expected) => {
    const images = await indexOf(
      name.replace(/\W+/g, '-'),
      entries.map((e) => ({ os: 'linux', ...e })),
    );
    const resolved = await resolveImage(store, 'p/app', name.replace(/\W+/g, '-'), arch);
    expect(resolved.digest).toBe(images[expected]!.manifest.digest);
  });

  it('lists what exists, leaving out attestation entries, when nothing matches', async () => {
    await indexOf('no-arm', [
      { os: 'linux', architecture: 'amd64' },
      { os: 'linux', architecture: 'arm', variant: 'v7' },
      { os: 'unknown', architecture: 'unknown' },
    ]);
    await expect(resolveImage(store, 'p/app', 'no-arm', 'arm', 'docker.io/p/app:no-arm')).rejects.toThrow(
      expect.objectContaining({
        code: 'PLATFORM_NOT_FOUND',
        message: 'docker.io/p/app:no-arm has no linux/arm64 image (it has linux/amd64, linux/arm/v7)',
      }),
    );
  });
});
