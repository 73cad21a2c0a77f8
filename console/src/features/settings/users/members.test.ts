import { describe, expect, it } from 'vitest';
import { quotaBody, quotaText, shownQuota } from './members';

const UNITS = { cores: 'cores', gb: 'GB' };
const fixed = { group: 'g', cpu: 1500, memory: 512, disk: 10240, use_free: false, use_percentage: false };
const percent = { group: 'g', cpu: 25, memory: 50, disk: 12.5, use_free: false, use_percentage: true };

describe('Users Settings helpers', () => {
  it.each([
    [fixed, '1.5 cores · 0.5 GB · 10 GB', { cpu: 1.5, memory: 0.5, disk: 10 }],
    [percent, '25% · 50% · 12.5%', { cpu: 25, memory: 50, disk: 12.5 }],
  ])('shows %o as %s and edits it as %o', (quota, text, shown) => {
    expect(quotaText(quota, UNITS)).toBe(text);
    expect(shownQuota(quota)).toEqual(shown);
  });

  it.each([
    [
      { cpu: 1.5, memory: 0.5, disk: 0.1 },
      false,
      2000,
      { quota: { group: 'g', cpu: 1500, memory: 512, disk: 102, use_percentage: false }, uid: 2000 },
    ],
    [
      { cpu: 30, memory: 10, disk: 12.5 },
      true,
      null,
      { quota: { group: 'g', cpu: 30, memory: 10, disk: 12.5, use_percentage: true } },
    ],
  ])('sends %o (percentage %s, uid %s) as %o', (values, percentage, uid, body) => {
    expect(quotaBody('g', values, percentage, uid)).toEqual(body);
  });
});
