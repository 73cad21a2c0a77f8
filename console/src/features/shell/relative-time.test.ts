import { describe, expect, it } from 'vitest';
import { relativeTime } from './relative-time';

const NOW = new Date('2026-05-04T12:00:00.000Z');
const ago = (ms: number) => new Date(NOW.getTime() - ms).toISOString();
const s = 1000;
const min = 60 * s;
const h = 60 * min;

describe('relative time of a notification', () => {
  it.each([
    ['0 s', ago(0), { unit: 'now' }],
    ['59.999 s', ago(min - 1), { unit: 'now' }],
    ['a few seconds in the future', ago(-5 * s), { unit: 'now' }],
    ['exactly 1 min', ago(min), { unit: 'minutes', count: 1 }],
    ['1 min 59 s', ago(2 * min - s), { unit: 'minutes', count: 1 }],
    ['59 min 59 s', ago(h - s), { unit: 'minutes', count: 59 }],
    ['exactly 1 h', ago(h), { unit: 'hours', count: 1 }],
    ['5 h 30 min', ago(5.5 * h), { unit: 'hours', count: 5 }],
    ['23 h 59 min', ago(24 * h - min), { unit: 'hours', count: 23 }],
    ['exactly 1 day', ago(24 * h), { unit: 'longAgo' }],
    ['a year', ago(365 * 24 * h), { unit: 'longAgo' }],
    ['an unreadable timestamp', 'not a date', { unit: 'longAgo' }],
  ])('%s → %j', (_label, timestamp, expected) => {
    expect(relativeTime(timestamp, NOW)).toEqual(expected);
  });
});
