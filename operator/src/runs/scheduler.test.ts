import { describe, expect, it } from 'vitest';
import { billingAmount, machineFor } from './billing.js';
import {
  chooseCluster,
  connectionOf,
  quotaAllows,
  staysOn,
  type Algorithm,
  type ClusterCandidate,
} from './scheduler.js';

const cm = (name: string, cpu: number, memory: number, disk = 10_000): ClusterCandidate => ({
  name,
  free: { cpu, memory, disk },
});
const clusters = [cm('a', 1000, 2048), cm('b', 4000, 8192), cm('c', 2000, 16384), cm('d', 200, 256)];
const demand = { cpu: 1000, memory: 1024, disk: 100 };

describe('cluster choice', () => {
  it.each<[Algorithm, string | undefined, string | undefined]>([
    ['fill_one', undefined, 'a'], // pack: first in name order where it fits
    ['fill_all', undefined, 'b'], // spread: most free cpu
    ['round_robin', undefined, 'a'],
    ['round_robin', 'a', 'b'],
    ['round_robin', 'b', 'c'],
    ['round_robin', 'c', 'a'], // d is too small: wraps around
  ])('%s after %s → %s', (algorithm, last, expected) => {
    expect(chooseCluster(algorithm, clusters, demand, last)?.name).toBe(expected);
  });
  it('fill_all breaks cpu ties on memory; nothing fits → undefined', () => {
    expect(chooseCluster('fill_all', [cm('x', 2000, 1024), cm('y', 2000, 4096)], demand)?.name).toBe('y');
    expect(chooseCluster('fill_one', clusters, { cpu: 9000, memory: 1, disk: 1 })).toBeUndefined();
  });
  it('a round of round_robin visits every eligible cluster once', () => {
    let last: string | undefined;
    const seen: string[] = [];
    for (let i = 0; i < 3; i++)
      seen.push((last = chooseCluster('round_robin', clusters, demand, last)!.name));
    expect(seen).toEqual(['a', 'b', 'c']);
  });
});

describe('quota', () => {
  it('queues what does not fit; 0 means no limit', () => {
    expect(quotaAllows({ cpu: 2000, memory: 0, disk: 0 }, { cpu: 1500, memory: 0, disk: 0 }, demand)).toMatch(
      /cpu quota exhausted/,
    );
    expect(quotaAllows({ cpu: 2500 }, { cpu: 1500, memory: 0, disk: 0 }, demand)).toBeUndefined();
    expect(
      quotaAllows({ cpu: 0, memory: 0, disk: 0 }, { cpu: 1e9, memory: 1e9, disk: 1e9 }, demand),
    ).toBeUndefined();
  });
});

describe('cluster connection', () => {
  const now = new Date('2026-01-01T00:10:00Z');
  const ago = (s: number) => new Date(now.getTime() - s * 1000).toISOString();
  it.each([
    [30, true, 'connected'],
    [150, true, 'connecting'],
    [200, false, 'closed'],
  ])('seen %ss ago → alive %s, %s', (s, alive, connection) => {
    expect(connectionOf(ago(s as number), now)).toMatchObject({ alive, connection });
  });
});

describe('retry and restart placement', () => {
  it.each([
    ['an alive manager', { status: { alive: true } }, true],
    ['a closed one (agent lost)', { status: { alive: false } }, false],
    ['one never seen', { status: {} }, false],
    ['one deleted since', undefined, false],
  ])('%s → stays: %s', (_name, cm, stays) => {
    expect(staysOn(cm)).toBe(stays);
  });
});

describe('billing', () => {
  it('uses the smallest fitting machine × 1.5', () => {
    expect(machineFor(500, 512)).toMatchObject({ cpu: 2000, memory: 2048, cost: 0.0192 });
    expect(machineFor(3000, 4096)).toMatchObject({ cpu: 4000, memory: 16384 });
    expect(billingAmount(3600e9, 500, 512)).toBeCloseTo(0.0288, 10);
  });
});
