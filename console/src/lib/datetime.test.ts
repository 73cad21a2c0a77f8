import { describe, expect, it } from 'vitest';
import { dayKey, formatDate, formatDateTime, formatDayMonth, formatHourMinute, formatTime } from './datetime';

// Local time, so the expectations hold in any time zone the tests run in.
const at = new Date(2026, 0, 5, 7, 8, 9);

describe('the console date formats (spec 1 §9: DD/MM/YYYY HH:mm:ss)', () => {
  it.each([
    { name: 'formatDate', format: formatDate, expected: '05/01/2026' },
    { name: 'formatTime', format: formatTime, expected: '07:08:09' },
    { name: 'formatDateTime', format: formatDateTime, expected: '05/01/2026 07:08:09' },
    { name: 'formatDayMonth', format: formatDayMonth, expected: '05/01' },
    { name: 'formatHourMinute', format: formatHourMinute, expected: '07:08' },
    { name: 'dayKey', format: dayKey, expected: '2026-01-05' },
  ])('$name gives $expected', ({ format, expected }) => {
    expect(format(at)).toBe(expected);
  });

  it.each([
    { name: 'formatDayMonth', format: formatDayMonth, expected: '05/01' },
    { name: 'formatHourMinute', format: formatHourMinute, expected: '07:08' },
  ])('$name takes epoch milliseconds as a chart axis gives them', ({ format, expected }) => {
    expect(format(at.getTime())).toBe(expected);
  });

  it('formats an afternoon in 24 hours', () => {
    expect(formatTime(new Date(2026, 10, 24, 23, 59, 1))).toBe('23:59:01');
  });
});
