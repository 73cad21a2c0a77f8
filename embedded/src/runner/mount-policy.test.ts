import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mountRefusal, parseMountPolicy, platformPathRefusal, type MountPolicy } from './mount-policy.js';

// <tmp>/mnt/{data,models}, <tmp>/secret, and links: mnt/data/out → secret, mnt/data/in → mnt/models.
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sandflow-mounts-')));
for (const d of ['mnt/data', 'mnt/models', 'mnt/other', 'secret'])
  fs.mkdirSync(path.join(root, d), { recursive: true });
fs.symlinkSync(path.join(root, 'secret'), path.join(root, 'mnt/data/out'));
fs.symlinkSync(path.join(root, 'mnt/models'), path.join(root, 'mnt/data/in'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const policy: MountPolicy = {
  organization: 'acme',
  base: `${root}/mnt`,
  points: [`${root}/mnt/data`, `${root}/mnt/models`],
};
const at = (hostPath: string) => [{ hostPath: hostPath.replace('<root>', root), mountPath: '/data' }];

describe('mount points at step start', () => {
  it.each<[string, string, RegExp | undefined]>([
    ['a mount point row', '<root>/mnt/data', undefined],
    ['a folder below a row', '<root>/mnt/models/v1', undefined],
    ['a symlink to another row', '<root>/mnt/data/in', undefined],
    [
      'outside the base',
      '/etc',
      /^mount \/etc at \/data: outside the mount base path .*\/mnt of organization acme$/,
    ],
    [
      '.. climbing out of a row',
      '<root>/mnt/data/../../secret',
      /^mount .*\/mnt\/data\/\.\.\/\.\.\/secret at \/data: outside the mount base path/,
    ],
    [
      'a symlink leading out of the base',
      '<root>/mnt/data/out',
      /^mount .*\/mnt\/data\/out at \/data: outside the mount base path/,
    ],
    ['a symlink leading out, deeper', '<root>/mnt/data/out/file', /outside the mount base path/],
    [
      'inside the base, not a row',
      '<root>/mnt/other',
      /^mount .*\/mnt\/other at \/data: not one of the mount points of organization acme \(/,
    ],
    ['the base itself', '<root>/mnt', /not one of the mount points/],
  ])('%s: %s', (_, hostPath, refusal) => {
    const reason = mountRefusal(at(hostPath), policy);
    if (refusal) expect(reason).toMatch(refusal);
    else expect(reason).toBeUndefined();
  });

  it('checks every mount of the step', () => {
    expect(mountRefusal([...at('<root>/mnt/data'), { hostPath: '/root', mountPath: '/r' }], policy)).toMatch(
      /^mount \/root at \/r: outside/,
    );
    expect(mountRefusal(undefined, policy)).toBeUndefined();
  });

  it.each<[string | undefined, Pick<MountPolicy, 'base' | 'points'>]>([
    ['{"base":"/mnt","points":["/mnt/a","relative",3]}', { base: '/mnt', points: ['/mnt/a'] }],
    [undefined, { base: '/', points: [] }],
    ['{"base":"mnt","points":[]}', { base: '/', points: [] }],
    ['not json', { base: '/', points: [] }],
  ])('annotation %j → %j (missing or unreadable: nothing allowed)', (raw, expected) => {
    const parsed = parseMountPolicy('acme', raw);
    expect(parsed).toEqual({ organization: 'acme', ...expected });
    if (expected.points.length === 0)
      expect(mountRefusal(at('/mnt/a'), parsed)).toMatch(
        /not one of the mount points of organization acme \(none\)/,
      );
  });
});

describe("the platform's own folders", () => {
  // <tmp>/secret plays the data folder; mnt/data/out is a symlink to it.
  const data = `${root}/secret`;
  it.each<[string, string, boolean]>([
    ['the data folder itself', '<root>/secret', true],
    ['a folder inside it', '<root>/secret/runs', true],
    ['a folder holding it (a row of /)', '/', true],
    ['its parent', '<root>', true],
    ['a symlink leading into it', '<root>/mnt/data/out', true],
    ['.. climbing into it', '<root>/mnt/data/../../secret/jwt', true],
    ['a mount point beside it', '<root>/mnt/data', false],
  ])('%s: %s → refused %s', (_, hostPath, refused) => {
    const reason = platformPathRefusal(at(hostPath), [data]);
    if (refused) expect(reason).toMatch(/: overlaps the platform's data folder, which no step may bind$/);
    else expect(reason).toBeUndefined();
  });

  it('refuses whatever the organization allows, and nothing without platform folders', () => {
    const everything: MountPolicy = { organization: 'acme', base: '/', points: ['/'] };
    expect(mountRefusal(at('<root>/secret'), everything)).toBeUndefined();
    expect(platformPathRefusal(at('<root>/secret'), [data])).toBeDefined();
    expect(platformPathRefusal(at('<root>/secret'), [])).toBeUndefined();
  });
});
