import { describe, expect, it } from 'vitest';
import { cpuMillis, memoryMiB, parseQuantity } from './quantity.js';

describe('parseQuantity', () => {
  it.each([
    ['1', 1],
    ['0', 0],
    ['250m', 0.25],
    ['1.5', 1.5],
    ['.5', 0.5],
    ['+2', 2],
    ['100n', 1e-7],
    ['10u', 1e-5],
    ['1k', 1000],
    ['1M', 1e6],
    ['1G', 1e9],
    ['2T', 2e12],
    ['1Ki', 1024],
    ['64Mi', 64 * 2 ** 20],
    ['1.5Gi', 1.5 * 2 ** 30],
    ['1Ti', 2 ** 40],
    ['1e3', 1000],
    ['5E-3', 0.005],
    [' 2Gi ', 2 * 2 ** 30],
    [3, 3],
  ])('%s', (q, expected) => {
    expect(parseQuantity(q)).toBeCloseTo(expected, 12);
  });

  it.each(['', 'abc', '1K', '1mi', '1 Gi', 'Gi', '1Gb', '--1'])('refuses %j', (q) => {
    expect(() => parseQuantity(q)).toThrow(/not a Kubernetes quantity/);
  });
});

describe('cpuMillis', () => {
  it.each([
    [undefined, 0],
    ['', 0],
    ['500m', 500],
    ['0.1', 100],
    ['1', 1000],
    ['2.5', 2500],
    ['1500u', 2], // rounded up, as MilliValue does
    ['1k', 1_000_000],
  ])('%j → %d', (q, expected) => {
    expect(cpuMillis(q)).toBe(expected);
  });
});

describe('memoryMiB', () => {
  it.each([
    [undefined, 0],
    ['64Mi', 64],
    ['1Gi', 1024],
    ['1.5Gi', 1536],
    ['512Ki', 0.5],
    ['1048576', 1],
    ['1M', 1e6 / 2 ** 20],
    ['1G', 1e9 / 2 ** 20],
    ['1Ti', 1024 * 1024],
  ])('%j → %d', (q, expected) => {
    expect(memoryMiB(q)).toBeCloseTo(expected, 9);
  });
});
