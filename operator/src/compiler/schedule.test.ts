import { Cron } from 'croner';
import { describe, expect, it } from 'vitest';
import type { SessionSchedule } from '@sandflow/crds';
import { compileSchedule, cronWindow, nextRun, scheduleOccurrences, type PeriodicLabel } from './schedule.js';

/** What Argo would start: cron fire times (UTC), filtered by the `when` interval guard, within [start, end]. */
function simulateCron(schedule: SessionSchedule, count: number): Date[] {
  const compiled = compileSchedule(schedule);
  if (compiled.kind !== 'cron') throw new Error('not periodic');
  const cron = new Cron(compiled.cron, { timezone: 'UTC', paused: true });
  const start = Date.parse(compiled.start);
  const end = compiled.end ? Date.parse(compiled.end) : Infinity;
  const runs: Date[] = [];
  let prev = new Date(start - 60_000);
  let last: Date | undefined;
  for (let i = 0; i < 5000 && runs.length < count; i++) {
    const t = cron.nextRun(prev);
    if (!t || t.getTime() > end) break;
    prev = t;
    if (t.getTime() < start) continue;
    const guard = compiled.minIntervalSeconds;
    if (guard && last && (t.getTime() - last.getTime()) / 1000 < guard) continue;
    runs.push(t);
    last = t;
  }
  return runs;
}

const LABELS: PeriodicLabel[] = ['minutely', 'hourly', 'daily', 'weekly', 'monthly', 'yearly'];
const VALUES = [1, 2, 3, 5, 7, 12, 15, 45, 120];
const STARTS = ['2026-01-07T09:37:00Z', '2025-11-28T23:05:00Z'];

describe('schedules', () => {
  for (const label of LABELS) {
    for (const value of VALUES) {
      if ((label === 'yearly' || label === 'monthly') && value > 12) continue;
      it(`${label} × ${value}: cron runs equal start + k × period`, () => {
        for (const start of STARTS) {
          const schedule = { start, periodic: true, periodicLabel: label, periodicValue: value };
          const expected = scheduleOccurrences(schedule, new Date(start), 6);
          expect(simulateCron(schedule, 6).map((d) => d.toISOString())).toEqual(
            expected.map((d) => d.toISOString()),
          );
          expect(expected[0]!.toISOString()).toBe(new Date(start).toISOString());
        }
      });
    }
  }

  it('gives readable crons with the start as anchor', () => {
    const at = (periodicLabel: PeriodicLabel, periodicValue: number) =>
      compileSchedule({ start: '2026-01-07T09:37:00Z', periodic: true, periodicLabel, periodicValue });
    expect(at('minutely', 1)).toMatchObject({ cron: '* * * * *' });
    expect(at('minutely', 15)).toMatchObject({ cron: '7-59/15 * * * *' });
    expect(at('hourly', 6)).toMatchObject({ cron: '37 3-23/6 * * *' });
    expect(at('daily', 1)).toMatchObject({ cron: '37 9 * * *' });
    expect(at('weekly', 1)).toMatchObject({ cron: '37 9 * * 3' });
    expect(at('monthly', 3)).toMatchObject({ cron: '37 9 7 1-12/3 *' });
    expect(at('yearly', 1)).toMatchObject({ cron: '37 9 7 1 *' });
    expect(at('daily', 3)).toMatchObject({
      cron: '37 9 * * *',
      when: expect.stringContaining('lastScheduledTime'),
    });
  });

  it('honours the end date', () => {
    const schedule = {
      start: '2026-01-01T00:00:00Z',
      periodic: true,
      periodicLabel: 'daily' as const,
      periodicValue: 2,
      end: '2026-01-05T00:30:00Z',
    };
    expect(scheduleOccurrences(schedule, new Date(0), 100).map((d) => d.toISOString())).toEqual([
      '2026-01-01T00:00:00.000Z',
      '2026-01-03T00:00:00.000Z',
      '2026-01-05T00:00:00.000Z',
    ]);
    expect(simulateCron(schedule, 100)).toHaveLength(3);
    const compiled = compileSchedule(schedule);
    expect(cronWindow(compiled, new Date('2025-12-31T00:00:00Z'))).toBe('before');
    expect(cronWindow(compiled, new Date('2026-01-02T00:00:00Z'))).toBe('active');
    expect(cronWindow(compiled, new Date('2026-01-06T00:00:00Z'))).toBe('after');
  });

  it('maps a one-off start to a single run at that time', () => {
    const once = { start: '2026-02-01T10:00:00Z' };
    expect(compileSchedule(once)).toEqual({ kind: 'once', at: '2026-02-01T10:00:00.000Z' });
    expect(compileSchedule({ ...once, periodic: true, periodicValue: 0 })).toEqual({
      kind: 'once',
      at: '2026-02-01T10:00:00.000Z',
    });
    expect(nextRun([once], new Date('2026-01-01T00:00:00Z'))?.toISOString()).toBe('2026-02-01T10:00:00.000Z');
    expect(nextRun([once], new Date('2026-03-01T00:00:00Z'))).toBeUndefined();
  });
});
