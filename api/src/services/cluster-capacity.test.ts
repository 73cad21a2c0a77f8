import { describe, expect, it } from 'vitest';
import {
  aliveCapacity,
  assertWithinCapacity,
  describeAmount,
  editMaximum,
  freeCapacity,
  isAlive,
} from './cluster-capacity.js';
import type { Resources } from './kube-tenancy.js';

const NOW = Date.parse('2026-01-01T12:00:00Z');
const ago = (ms: number) => new Date(NOW - ms).toISOString();
const r = (cpu: number, memory: number, disk: number): Resources => ({ cpu, memory, disk });
const cluster = (resources: Resources, lastSeen?: string) => ({
  spec: { resources },
  status: lastSeen === undefined ? {} : { lastSeen },
});

describe('isAlive (last update within 3 minutes)', () => {
  it.each([
    ['just now', ago(0), true],
    ['2 minutes ago (connected/connecting)', ago(120_000), true],
    ['exactly 3 minutes ago', ago(180_000), true],
    ['3 minutes and 1 ms ago', ago(180_001), false],
    ['an hour ago', ago(3_600_000), false],
    ['never', undefined, false],
    ['an unreadable date', 'yesterday-ish', false],
  ])('%s → %s', (_case, lastSeen, alive) => {
    expect(isAlive(lastSeen, NOW)).toBe(alive);
  });
});

describe('aliveCapacity', () => {
  it.each([
    ['no clusters', [], r(0, 0, 0), 0],
    ['one alive', [cluster(r(4000, 8192, 10240), ago(1000))], r(4000, 8192, 10240), 1],
    [
      'two alive are summed',
      [cluster(r(4000, 8192, 10240), ago(1000)), cluster(r(2000, 1024, 0), ago(170_000))],
      r(6000, 9216, 10240),
      2,
    ],
    [
      'dead and never-seen clusters are ignored',
      [
        cluster(r(4000, 8192, 10240), ago(1000)),
        cluster(r(64_000, 65_536, 1_000_000), ago(181_000)),
        cluster(r(64_000, 65_536, 1_000_000)),
      ],
      r(4000, 8192, 10240),
      1,
    ],
  ])('%s', (_case, clusters, total, count) => {
    expect(aliveCapacity(clusters, NOW)).toEqual({ total, clusters: count });
  });

  it('counts a cluster without resources as nothing', () => {
    expect(aliveCapacity([{ spec: {}, status: { lastSeen: ago(0) } }], NOW).total).toEqual(r(0, 0, 0));
  });
});

describe('freeCapacity (spec 3 §5: total − allocated, rounded down to 0.5 core / 0.5 GB / 0.1 GB, ≥ 0)', () => {
  it.each([
    ['nothing allocated, exact steps', r(12_000, 16_384, 102_400), r(0, 0, 0), r(12_000, 16_384, 102_400)],
    ['rounds cpu down to 0.5 core', r(12_999, 0, 0), r(0, 0, 0), r(12_500, 0, 0)],
    ['rounds memory down to 0.5 GB (512 MB)', r(0, 2000, 0), r(0, 0, 0), r(0, 1536, 0)],
    ['rounds disk down to 0.1 GB (102.4 MB)', r(0, 0, 1000), r(0, 0, 0), r(0, 0, 921.6)],
    ['keeps 0.3 GB of disk exact', r(0, 0, 307.2), r(0, 0, 0), r(0, 0, 307.2)],
    ['less than one step is 0', r(499, 511, 102), r(0, 0, 0), r(0, 0, 0)],
    [
      'subtracts the allocated quotas',
      r(20_000, 32_768, 204_800),
      r(16_000, 16_384, 102_400),
      r(4000, 16_384, 102_400),
    ],
    ['never below 0 when over-allocated', r(4000, 1024, 1024), r(8000, 2048, 2048), r(0, 0, 0)],
    ['no clusters, nothing free', r(0, 0, 0), r(0, 0, 0), r(0, 0, 0)],
  ])('%s', (_case, total, allocated, free) => {
    expect(freeCapacity(total, allocated)).toEqual(free);
  });
});

describe('editMaximum (free capacity plus the organization current quota)', () => {
  it.each([
    ['free plus current', r(4000, 1024, 102.4), r(3300, 1000, 50), r(7300, 2024, 152.4)],
    [
      'nothing free: the current quota stays reachable',
      r(0, 0, 0),
      r(8000, 16_384, 102_400),
      r(8000, 16_384, 102_400),
    ],
    [
      'an organization without quota gets the free capacity',
      r(500, 512, 307.2),
      r(0, 0, 0),
      r(500, 512, 307.2),
    ],
  ])('%s', (_case, free, current, maximum) => {
    expect(editMaximum(free, current)).toEqual(maximum);
  });
});

describe('the 422 names the field and the maximum', () => {
  it.each([
    [r(12_001, 0, 0), r(12_000, 0, 0), false, 'quota.cpu: at most 12 cores are free'],
    [r(1500, 0, 0), r(1000, 0, 0), false, 'quota.cpu: at most 1 core is free'],
    [r(0, 0, 0.5), r(0, 0, 0), false, 'quota.disk: at most 0 MB are free'],
    [r(0, 8000, 0), r(0, 7680, 0), false, 'quota.memory: at most 7.5 GB are free'],
    [r(0, 0, 2_000_000), r(0, 0, 1_572_864), false, 'quota.disk: at most 1.5 TB are free'],
    [
      r(9000, 0, 0),
      r(7300, 0, 0),
      true,
      'quota.cpu: at most 7.3 cores (the free cluster capacity plus its current quota)',
    ],
  ])('%j above %j', (wanted, maximum, editing, message) => {
    expect(() => assertWithinCapacity(wanted, maximum, editing)).toThrow(message);
  });

  it('accepts exactly the maximum, including fractional disk steps', () => {
    expect(() => assertWithinCapacity(r(12_000, 7680, 307.2), r(12_000, 7680, 307.2), false)).not.toThrow();
  });

  it.each([
    ['memory', 512, '512 MB'],
    ['memory', 1536, '1.5 GB'],
    ['disk', 921.6, '921.6 MB'],
    ['cpu', 500, '0.5 cores'],
  ] as const)('describes %s %d as %s', (key, value, text) => {
    expect(describeAmount(key, value)).toBe(text);
  });
});
