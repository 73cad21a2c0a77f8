import { describe, expect, it } from 'vitest';
import { dollarsOfNano, priceStep } from './billing-prices.js';

const HOUR_NS = 3_600_000_000_000n;

describe('priceStep (spec 2 §9 price table)', () => {
  it.each([
    // cpu, memory, machine cpu, machine memory, dollars for one hour (cost × 1.5)
    [500, 512, 2000, 2048, 0.0288],
    [2000, 2048, 2000, 2048, 0.0288],
    [2000, 2049, 2000, 4096, 0.0576],
    [2001, 1024, 4000, 16384, 0.2304],
    [4000, 20000, 4000, 32768, 0.3552],
    [8000, 65536, 8000, 65536, 0.7104],
    [16000, 131072, 16000, 131072, 1.4208],
    [20000, 1024, 32000, 262144, 2.8416],
  ])('cpu %i memory %i → %i/%i', (cpu, memory, machineCpu, machineMemory, dollars) => {
    const priced = priceStep(cpu, memory, HOUR_NS);
    expect(priced.machine).toEqual({ cpu: machineCpu, memory: machineMemory });
    expect(priced.amountNano).toBe(BigInt(Math.round(dollars * 1e9)));
  });

  it('charges the execution time in nanoseconds, rounded once to the nano-dollar', () => {
    // 90 minutes on the smallest machine: 0.0288 × 1.5 = 0.0432 $.
    expect(priceStep(100, 100, (HOUR_NS * 3n) / 2n).amountNano).toBe(43_200_000n);
    // One second: 0.0288 / 3600 = 0.000008 $ = 8000 nano-dollars.
    expect(priceStep(100, 100, 1_000_000_000n).amountNano).toBe(8_000n);
    expect(priceStep(100, 100, -5n).amountNano).toBe(0n);
  });

  it.each([
    [0n, 0],
    [4_999_999n, 0],
    [5_000_000n, 0.01],
    [1_234_567_890n, 1.23],
    [1_235_000_000n, 1.24],
  ])('dollarsOfNano(%s) = %f', (nano, dollars) => {
    expect(dollarsOfNano(nano)).toBe(dollars);
  });
});
