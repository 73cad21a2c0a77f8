import { describe, expect, it } from 'vitest';
import {
  convertQuota,
  floorToStep,
  formatMegabytes,
  groupMaxima,
  organizationMaxima,
  quotaTicks,
  toApi,
  toDisplay,
  uidAllowed,
  userQuotaMaxima,
  type MemberShare,
} from './quota';

// A group of 4 cores, 8 GB memory, 20 GB disk in API units.
const GROUP = { cpu: 4000, memory: 8192, disk: 20480 };
const share = (cpu: number, memory: number, disk: number, use_percentage = false): MemberShare => ({
  cpu,
  memory,
  disk,
  use_percentage,
});

describe('quota arithmetic', () => {
  it.each([
    [1.74, 0.5, 1.5],
    [1.5, 0.5, 1.5],
    [0.29, 0.1, 0.2],
    [0.3, 0.1, 0.3],
    [-2, 0.5, 0],
    [Number.NaN, 0.5, 0],
  ])('floorToStep(%d, %d) is %d', (value, step, expected) => {
    expect(floorToStep(value, step)).toBe(expected);
  });

  it('converts API units to cores / GB and back', () => {
    expect(toDisplay(GROUP)).toEqual({ cpu: 4, memory: 8, disk: 20 });
    expect(toApi({ cpu: 1.5, memory: 0.5, disk: 0.1 })).toEqual({ cpu: 1500, memory: 512, disk: 102 });
  });

  it.each<[string, MemberShare[], boolean, { cpu: number; memory: number; disk: number }]>([
    ['nobody else', [], false, { cpu: 4, memory: 8, disk: 20 }],
    ['one other fixed share', [share(1200, 3072, 5120)], false, { cpu: 2.5, memory: 5, disk: 15 }],
    ['a percentage share does not count', [share(50, 50, 50, true)], false, { cpu: 4, memory: 8, disk: 20 }],
    ['overbooked: never below 0', [share(5000, 9000, 30000)], false, { cpu: 0, memory: 0, disk: 0 }],
    ['percentage mode', [share(1000, 1024, 1024)], true, { cpu: 100, memory: 100, disk: 100 }],
  ])('user quota maxima: %s', (_name, others, percentage, expected) => {
    expect(userQuotaMaxima(GROUP, others, percentage)).toEqual(expected);
  });

  it.each([
    // cores/GB → percent of 4 cores, 8 GB, 20 GB; disk steps 0.5 %
    [{ cpu: 1, memory: 2, disk: 3.3 }, true, { cpu: 25, memory: 25, disk: 16.5 }],
    [{ cpu: 1.3, memory: 0, disk: 20 }, true, { cpu: 33, memory: 0, disk: 100 }],
    // percent → cores/GB rounded to 0.5, 0.5, 0.1
    [{ cpu: 30, memory: 10, disk: 12.5 }, false, { cpu: 1, memory: 1, disk: 2.5 }],
    [{ cpu: 100, memory: 100, disk: 100 }, false, { cpu: 4, memory: 8, disk: 20 }],
  ])('convertQuota(%o, toPercentage %s) is %o', (values, toPercentage, expected) => {
    const maxima = userQuotaMaxima(GROUP, [], toPercentage);
    expect(convertQuota(values, toDisplay(GROUP), toPercentage, maxima)).toEqual(expected);
  });

  it('keeps a converted value within the new maximum', () => {
    const maxima = { cpu: 2, memory: 8, disk: 20 };
    expect(convertQuota({ cpu: 100, memory: 50, disk: 0 }, toDisplay(GROUP), false, maxima)).toEqual({
      cpu: 2,
      memory: 4,
      disk: 0,
    });
  });

  it('a group without quota converts to 0 %', () => {
    const maxima = { cpu: 100, memory: 100, disk: 100 };
    expect(
      convertQuota({ cpu: 1, memory: 1, disk: 1 }, { cpu: 0, memory: 0, disk: 0 }, true, maxima),
    ).toEqual({
      cpu: 0,
      memory: 0,
      disk: 0,
    });
  });

  it.each([
    [{ cpu: 3500, memory: 4096, disk: 1126 }, undefined, { cpu: 3.5, memory: 4, disk: 1 }],
    [
      { cpu: 1000, memory: 1024, disk: 1024 },
      { cpu: 500, memory: 512, disk: 102 },
      { cpu: 1.5, memory: 1.5, disk: 1 },
    ],
  ])('organization maxima from free %o plus current %o', (free, current, expected) => {
    expect(organizationMaxima(free, current)).toEqual(expected);
  });

  it('unknown capacity caps nothing', () => {
    expect(organizationMaxima(null)).toBeNull();
  });

  it('ticks at 25, 50, 75 % of the maximum', () => {
    expect(quotaTicks(8)).toEqual([{ value: 2 }, { value: 4 }, { value: 6 }]);
  });

  it.each([
    [999, [], false],
    [1000, [], true],
    [1999, [1999], false],
    [1500.5, [], false],
  ])('uid %d with taken %o allowed: %s', (uid, taken, expected) => {
    expect(uidAllowed(uid, taken)).toBe(expected);
  });

  it.each([
    [512, '512 MB'],
    [2048, '2 GB'],
    [1_572_864, '1.5 TB'],
  ])('formatMegabytes(%d) is %s', (mb, text) => {
    expect(formatMegabytes(mb)).toBe(text);
  });

  it.each([
    ['a new group', undefined, { cpu: 1.5, memory: 4, disk: 10 }],
    ['editing group a keeps its own share', 'a', { cpu: 2.5, memory: 6, disk: 10 }],
  ])('group maxima: %s', (_name, editing, expected) => {
    const groups = [
      { id: 'a', cpu: 1000, memory: 2048, disk: 0 },
      { id: 'b', cpu: 1500, memory: 2048, disk: 10240 },
    ];
    expect(groupMaxima(GROUP, groups, editing)).toEqual(expected);
  });
});
