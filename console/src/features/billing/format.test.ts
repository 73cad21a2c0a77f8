import { describe, expect, it } from 'vitest';
import { formatDollars, formatDuration, formatExactDollars, machineSize } from './format';

describe('billing formats', () => {
  it.each([
    ['0', 'en', '$0.00'],
    ['4999999', 'en', '$0.00'],
    // Half a cent exactly rounds up, as the API's dollarsOfNano does.
    ['5000000', 'en', '$0.01'],
    ['15000000', 'en', '$0.02'],
    ['14999999', 'en', '$0.01'],
    ['123456789012', 'en', '$123.46'],
    ['1234567890123', 'en', '$1,234.57'],
    // Beyond a float's 15–17 digits: still exact.
    ['900719925474099312345', 'en', '$900,719,925,474.10'],
    ['1234567890123', 'it', '1234,57 USD'],
  ])('formatDollars(%s, %s) = %s', (nano, language, text) => {
    expect(formatDollars(nano, language).replace(/\s/g, ' ')).toBe(text.replace(/\s/g, ' '));
  });

  it.each([
    ['28800', '$0.0000288'],
    ['1', '$0.000000001'],
    ['1500000000', '$1.50'],
  ])('formatExactDollars(%s) = %s', (nano, text) => {
    expect(formatExactDollars(nano, 'en')).toBe(text);
  });

  it.each([
    [0, '0:00:00'],
    [999_999_999, '0:00:00'],
    [61e9, '0:01:01'],
    [3_723e9, '1:02:03'],
    [90_000e9, '25:00:00'],
    [-5, '0:00:00'],
  ])('formatDuration(%d) = %s', (ns, text) => {
    expect(formatDuration(ns)).toBe(text);
  });

  it('writes machine sizes in cores and GB', () => {
    expect(machineSize({ cpu: 2000, memory: 4096 })).toEqual({ cpu: 2, memory: 4 });
  });
});
