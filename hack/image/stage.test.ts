import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pruneCache } from './stage.js';

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sandflow-stage-cache-'));
});
afterEach(() => fs.rm(dir, { recursive: true, force: true }));

/** A cache entry used `minutesAgo` minutes ago. */
async function entry(name: string, minutesAgo: number) {
  const at = path.join(dir, name);
  await fs.mkdir(at);
  await fs.writeFile(path.join(at, 'file'), name);
  const when = new Date(Date.now() - minutesAgo * 60_000);
  await fs.utimes(at, when, when);
}

describe('the image stage cache is pruned', () => {
  it.each([
    {
      kind: 'console',
      keep: 2,
      left: ['console-b', 'console-c', 'node_modules-x', 'node_modules-y', 'node_modules-z'],
    },
    { kind: 'node_modules', keep: 1, left: ['console-a', 'console-b', 'console-c', 'node_modules-z'] },
    {
      kind: 'console',
      keep: 5,
      left: ['console-a', 'console-b', 'console-c', 'node_modules-x', 'node_modules-y', 'node_modules-z'],
    },
  ])(
    'of kind $kind keeping $keep, only the most recently used of that kind stay',
    async ({ kind, keep, left }) => {
      await entry('console-a', 30);
      await entry('console-b', 20);
      await entry('console-c', 10);
      await entry('node_modules-x', 50);
      await entry('node_modules-y', 40);
      await entry('node_modules-z', 5);
      await pruneCache(dir, kind, keep);
      expect((await fs.readdir(dir)).sort()).toEqual(left);
    },
  );

  it('removes a build folder left for over an hour, not one in use', async () => {
    await entry('.tmp-old', 61);
    await entry('.tmp-new', 1);
    await entry('console-a', 1);
    expect(await pruneCache(dir, 'console')).toEqual(['.tmp-old']);
    expect((await fs.readdir(dir)).sort()).toEqual(['.tmp-new', 'console-a']);
  });

  it('is quiet about a cache folder that does not exist yet', async () => {
    await expect(pruneCache(path.join(dir, 'none'), 'console')).resolves.toEqual([]);
  });
});
