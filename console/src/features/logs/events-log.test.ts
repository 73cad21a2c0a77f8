import { describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../api/answers';
import {
  compactData,
  dayKey,
  formatDate,
  formatDateTime,
  formatTime,
  groupByDay,
  isEndOfLog,
  mergeEvents,
  newestId,
  splitCurrent,
} from './events-log';

// Local times (the log shows the browser's time zone), turned into the API's ISO strings.
const at = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0) =>
  new Date(y, mo - 1, d, h, mi, s).toISOString();
const event = (id: number, timestamp: string, extra: Partial<AuditEvent> = {}): AuditEvent => ({
  id,
  timestamp,
  organization_name: 'Acme',
  kind: 'users',
  action: 'update',
  subject: `subject ${id}`,
  data: [],
  user_name: 'Ada Lovelace',
  ...extra,
});

describe('date formats (DD/MM/YYYY HH:mm:ss)', () => {
  it.each([
    [at(2026, 11, 23, 9, 5, 7), '23/11/2026', '09:05:07', '2026-11-23'],
    [at(2026, 1, 1, 0, 0, 0), '01/01/2026', '00:00:00', '2026-01-01'],
    [at(2025, 12, 31, 23, 59, 59), '31/12/2025', '23:59:59', '2025-12-31'],
    [at(2024, 2, 29, 13, 30, 0), '29/02/2024', '13:30:00', '2024-02-29'],
  ])('%s → %s %s', (iso, date, time, key) => {
    expect(formatDate(iso)).toBe(date);
    expect(formatTime(iso)).toBe(time);
    expect(formatDateTime(iso)).toBe(`${date} ${time}`);
    expect(dayKey(iso)).toBe(key);
  });
});

describe('groupByDay', () => {
  it('puts consecutive events of one local day together, newest day first, order kept', () => {
    const events = [
      event(6, at(2026, 11, 23, 18, 0, 0)),
      event(5, at(2026, 11, 23, 0, 0, 1)),
      event(4, at(2026, 11, 22, 23, 59, 59)),
      event(3, at(2026, 11, 22, 8, 0, 0)),
      event(2, at(2026, 11, 20, 12, 0, 0)),
    ];
    const groups = groupByDay(events);
    expect(groups.map((g) => [g.key, g.date, g.weekday, g.events.map((e) => e.id)])).toEqual([
      ['2026-11-23', '23/11/2026', 1, [6, 5]],
      ['2026-11-22', '22/11/2026', 0, [4, 3]],
      ['2026-11-20', '20/11/2026', 5, [2]],
    ]);
  });

  it('gives nothing for no events', () => {
    expect(groupByDay([])).toEqual([]);
  });
});

describe('mergeEvents', () => {
  it('keeps each event once, newest first, when a later page repeats the previous tail', () => {
    const page0 = [event(10, at(2026, 1, 2)), event(9, at(2026, 1, 2)), event(8, at(2026, 1, 1))];
    // Two new events arrived before page 1 was asked: the offset moved by two.
    const page1 = [event(9, at(2026, 1, 2)), event(8, at(2026, 1, 1)), event(7, at(2026, 1, 1))];
    const latest = [event(12, at(2026, 1, 3)), event(11, at(2026, 1, 3)), event(10, at(2026, 1, 2))];
    expect(mergeEvents(page0, page1, latest).map((e) => e.id)).toEqual([12, 11, 10, 9, 8, 7]);
  });
});

describe('the Currently split', () => {
  const events = [event(12, at(2026, 1, 3)), event(11, at(2026, 1, 3)), event(10, at(2026, 1, 2))];
  it.each([
    [10, [12, 11], [10]],
    [12, [], [12, 11, 10]],
    [0, [12, 11, 10], []],
  ])('baseline %i → current %j, log %j', (baseline, current, logged) => {
    const split = splitCurrent(events, baseline);
    expect(split.current.map((e) => e.id)).toEqual(current);
    expect(split.logged.map((e) => e.id)).toEqual(logged);
  });

  it('takes the newest id of the first page as the baseline (0 for an empty log)', () => {
    expect(newestId(events)).toBe(12);
    expect(newestId([])).toBe(0);
  });
});

describe('isEndOfLog', () => {
  const one = [event(1, at(2026, 1, 1))];
  it.each([
    [undefined, false],
    [[], false],
    [[one], false],
    [[one, one], false],
    [[one, []], true],
    [[[]], true],
  ])('%j → %s', (pages, ended) => {
    expect(isEndOfLog(pages as AuditEvent[][] | undefined)).toBe(ended);
  });
});

describe('compactData', () => {
  it.each([
    [[], ''],
    [null, ''],
    [[{ avatar: true }], 'avatar'],
    [[{ password: true }, { name: 'new-name' }], 'password, name: new-name'],
    [[{ quota: { cpu: 1 } }], 'quota: {"cpu":1}'],
    [['plain', 3], 'plain, 3'],
    [[{ text: 'x'.repeat(60) }], `text: ${'x'.repeat(39)}…`],
  ])('%j → %j', (data, text) => {
    expect(compactData(data)).toBe(text);
  });
});
