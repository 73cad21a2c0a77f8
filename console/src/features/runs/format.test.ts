import { describe, expect, it } from 'vitest';
import { formatRunDate, formatSize } from './format';
import { allowedButtons, beyondStart, colourOf, hasLog, legendOf, RUN_BUTTONS } from './status';
import type { RunStatus } from '../sessions/types';

describe('formatSize', () => {
  it.each([
    [0, '0.00 B'],
    [1023, '1023.00 B'],
    [1024, '1.00 KB'],
    [1536, '1.50 KB'],
    [5 * 1024 ** 2, '5.00 MB'],
    [1.25 * 1024 ** 3, '1.25 GB'],
    [3 * 1024 ** 4, '3072.00 GB'],
    [-1, '-'],
  ])('%d bytes read %s', (bytes, text) => expect(formatSize(bytes)).toBe(text));
});

describe('formatRunDate', () => {
  it.each([['0001-01-01T00:00:00Z'], [''], [null]])('%j is -', (value) =>
    expect(formatRunDate(value)).toBe('-'),
  );
  it('formats a set date', () => expect(formatRunDate('2026-11-20T10:00:00Z')).toMatch(/^\d\d\/11\/2026 /));
});

describe('run statuses', () => {
  it.each([
    ['WAITING', 'waiting'],
    ['QUEUED', 'waiting'],
    ['INIT', 'initializing'],
    ['RUNNING', 'running'],
    ['COMPLETED', 'completed'],
    ['ERROR', 'error'],
    ['PAUSED', 'paused'],
    ['STOPPED', 'stopped'],
    ['SKIPPING', 'skipped'],
    ['whatever', 'waiting'],
  ])('%s is %s in the legend', (status, key) => expect(legendOf(status)).toBe(key));

  it('gives every legend entry its own colour', () => {
    const colours = ['WAITING', 'INIT', 'RUNNING', 'COMPLETED', 'ERROR', 'PAUSED', 'STOPPED', 'SKIPPING'].map(
      colourOf,
    );
    expect(new Set(colours).size).toBe(8);
  });

  it.each<[RunStatus, string[]]>([
    ['RUNNING', ['view', 'pause', 'stop', 'restart', 'delete']],
    ['PAUSED', ['view', 'start', 'stop', 'restart', 'delete']],
    ['ERROR', ['view', 'retry', 'restart', 'delete']],
    ['COMPLETED', ['view', 'restart', 'delete']],
    ['STOPPED', ['view', 'restart', 'delete']],
    ['WAITING', ['view', 'restart', 'delete']],
  ])('a %s run offers %j', (status, buttons) => {
    const allowed = allowedButtons(status);
    expect(RUN_BUTTONS.filter((b) => allowed.has(b))).toEqual(buttons);
  });

  it.each([
    ['RUNNING', true],
    ['COMPLETED', true],
    ['INIT', false],
    ['SCHEDULED', false],
    ['QUEUED', false],
    ['WAITING', false],
  ])('a %s sub-sandbox has a log: %s', (status, expected) => expect(hasLog(status)).toBe(expected));

  it.each([
    [['WAITING', 'INIT'], false],
    [['WAITING', 'RUNNING'], true],
    [[], false],
  ])('download offered for %j: %s', (statuses, expected) => expect(beyondStart(statuses)).toBe(expected));
});
