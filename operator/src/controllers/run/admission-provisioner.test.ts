import type { ClusterManager } from '@sandflow/crds';
import { describe, expect, it } from 'vitest';
import {
  excessOver,
  parseAllowance,
  platformCapacity,
  provisionerDecision,
  type BorrowInput,
} from './admission-provisioner.js';

const r = (cpu: number, memory: number, disk: number) => ({ cpu, memory, disk });
const ZERO = r(0, 0, 0);

/** A group with quota 1000m / 1000 MB / 1000 MB holding 800m / 800 MB / 0, asking 500m / 100 MB / 0. */
const base: BorrowInput = {
  refused: 'cpu quota exhausted: 800 in use + 500 requested > 1000',
  groupQuota: r(1000, 1000, 1000),
  usedGroup: r(800, 800, 0),
  demand: r(500, 100, 0),
  allowance: r(1000, 1000, 1000),
  borrowedByOrganization: ZERO,
  borrowedByAll: ZERO,
  platform: r(4000, 4000, 4000),
};

describe('the automatic provisioner', () => {
  it.each<[string, Partial<BorrowInput>, { borrow: ReturnType<typeof r> } | RegExp]>([
    ['on, room everywhere: borrows only the part above the quota', {}, { borrow: r(300, 0, 0) }],
    [
      'the group already above its quota: borrows the whole demand',
      { usedGroup: r(1200, 500, 0), borrowedByOrganization: r(200, 0, 0), borrowedByAll: r(200, 0, 0) },
      { borrow: r(500, 0, 0) },
    ],
    [
      'off (no annotation, or disabled for all): the quota reason stands',
      { allowance: undefined },
      /^cpu quota exhausted: [^;]*$/,
    ],
    [
      'the allowance is used up by the organization',
      { borrowedByOrganization: r(800, 0, 0) },
      /cpu quota exhausted.*; the automatic provisioner lends at most 1000m cpu.*\(800m cpu.*already lent\)/,
    ],
    [
      'an allowance of 0 for a resource lends none of it',
      { allowance: r(0, 1000, 1000) },
      /lends at most 0m cpu/,
    ],
    [
      'the platform has no capacity left above the quotas',
      { platform: r(1000, 4000, 4000), borrowedByAll: r(800, 0, 0) },
      /found no free cpu on the platform above the quotas/,
    ],
    ['the platform is fully given to quotas', { platform: r(0, 0, 0) }, /found no free cpu/],
    [
      'unbounded disk (a cluster manager without a disk figure)',
      { groupQuota: r(1000, 1000, 10), demand: r(500, 100, 50), platform: r(4000, 4000, Infinity) },
      { borrow: r(300, 0, 40) },
    ],
  ])('%s', (_, change, expected) => {
    const decision = provisionerDecision({ ...base, ...change });
    if (expected instanceof RegExp) {
      expect(decision).toHaveProperty('reason');
      expect((decision as { reason: string }).reason).toMatch(expected);
    } else expect(decision).toEqual(expected);
  });

  it.each([
    [r(1000, 0, 500), r(1500, 200, 400), r(500, 0, 0)], // 0 = no limit: nothing above it
    [undefined, r(1500, 200, 400), ZERO],
    [r(1000, 1000, 1000), r(10, 10, 10), ZERO],
  ])('excess of quota %j with %j used: %j', (quota, used, excess) => {
    expect(excessOver(quota, used)).toEqual(excess);
  });

  it.each<[string | undefined, ReturnType<typeof r> | undefined]>([
    [undefined, undefined],
    ['', undefined],
    ['{"cpu":2000,"memory":1024,"disk":0}', r(2000, 1024, 0)],
    ['{"cpu":-1,"memory":1024,"disk":0}', undefined],
    ['{"cpu":"2","memory":1024,"disk":0}', undefined],
    ['not json', undefined],
  ])('allowance annotation %j → %j', (raw, allowance) => {
    expect(parseAllowance(raw)).toEqual(allowance);
  });

  it('platform capacity: alive, active managers minus every group quota', () => {
    const cm = (alive: boolean, active: boolean, resources: ClusterManager['spec']['resources']) =>
      ({ spec: { active, resources }, status: { alive } }) as unknown as ClusterManager;
    const capacity = platformCapacity(
      [
        cm(true, true, { cpu: 4000, memory: 8192, disk: 1000 }),
        cm(true, true, { cpu: 2000, memory: 1024 }),
        cm(false, true, { cpu: 64_000, memory: 64_000, disk: 64_000 }),
        cm(true, false, { cpu: 64_000, memory: 64_000, disk: 64_000 }),
      ],
      [r(1000, 1024, 500), { cpu: 500 }, undefined],
    );
    expect(capacity).toEqual({ cpu: 4500, memory: 8192, disk: Infinity });
  });
});
