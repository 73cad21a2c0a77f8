import { describe, expect, it } from 'vitest';
import {
  completeRunQuery,
  counters,
  defaultGroups,
  defaultRange,
  filterProblem,
  groupBars,
  isAdministrator,
  limitOf,
  mergeSeries,
  minutes,
  outcomeSlices,
  parseRunQuery,
  runKey,
  rangeBody,
  toUnits,
  usage,
  valueAxis,
  type GroupStatistics,
} from './shape';

const group = (over: Partial<GroupStatistics> = {}): GroupStatistics => ({
  id: 'g1',
  name: 'research',
  scheduled: 0,
  running: 0,
  success: 0,
  failed: 0,
  stopped: 0,
  limit: { cpu: 4000, memory: 8192, disk: 10240 },
  cpu: [],
  memory: [],
  disk: [],
  ...over,
});

describe('the default filter', () => {
  it.each([
    ['mid-hour', new Date(2026, 10, 23, 22, 17, 42), '2026-10-23T23:00', '2026-11-23T23:00'],
    ['on the hour', new Date(2026, 10, 23, 22, 0, 0), '2026-10-23T23:00', '2026-11-23T23:00'],
    ['across midnight and a year', new Date(2026, 0, 1, 23, 30), '2025-12-02T00:00', '2026-01-02T00:00'],
  ])('runs one month back to the next hour (%s)', (_case, now, start, end) => {
    expect(defaultRange(now)).toEqual({ start, end });
  });

  it.each([
    [3, 3],
    [7, 7],
    [12, 7],
  ])('selects the first of %i groups, at most 7 (%i)', (offered, selected) => {
    const options = Array.from({ length: offered }, (_, i) => ({ id: `g${i}`, name: `group ${i}` }));
    expect(defaultGroups(options)).toEqual(options.slice(0, selected).map((o) => o.id));
  });
});

describe('filter validation', () => {
  it.each([
    [['g1'], { start: '2026-11-01T00:00', end: '2026-11-02T00:00' }, null],
    [['g1'], { start: '2026-11-02T00:00', end: '2026-11-02T00:00' }, null],
    [['g1'], { start: '2026-11-03T00:00', end: '2026-11-02T00:00' }, 'startAfterEnd'],
    [['g1'], { start: '', end: '2026-11-02T00:00' }, 'invalidDate'],
    [[], { start: '2026-11-01T00:00', end: '2026-11-02T00:00' }, 'noGroups'],
    [[], { start: '2026-11-03T00:00', end: '2026-11-02T00:00' }, 'startAfterEnd'],
  ])('groups %j and %j: %s', (groups, range, problem) => {
    expect(filterProblem(groups, range)).toBe(problem);
  });

  it('sends the local range as ISO instants', () => {
    const body = rangeBody(['g1'], { start: '2026-11-01T00:00', end: '2026-11-02T00:00' });
    expect(body).toEqual({
      groups: ['g1'],
      start_date: new Date(2026, 10, 1).toISOString(),
      end_date: new Date(2026, 10, 2).toISOString(),
    });
  });
});

describe('counters and outcome charts', () => {
  const groups = [
    group({ id: 'a', name: 'a', scheduled: 2, running: 1, success: 5, failed: 2, stopped: 1 }),
    group({ id: 'b', name: 'b', success: 0, failed: 0 }),
    group({ id: 'c', name: 'c', scheduled: 1, failed: 3 }),
  ];
  it('sums the groups and counts the active ones', () => {
    expect(counters(groups)).toEqual({
      scheduled: 3,
      running: 1,
      success: 5,
      failed: 5,
      stopped: 1,
      activeGroups: 2,
    });
  });
  it('keeps the slices and bars that have runs', () => {
    expect(outcomeSlices(counters([groups[2]!]))).toEqual([{ key: 'failed', value: 3 }]);
    expect(groupBars(groups).map((bar) => bar.name)).toEqual(['a', 'c']);
  });
});

describe('units and usage', () => {
  it.each([
    ['cpu', 1500, 1.5],
    ['memory', 2048, 2],
    ['disk', 512, 0.5],
    ['memory', 1000, 0.98],
  ] as const)('%s %d is %d in display units', (resource, value, shown) => {
    expect(toUnits(resource, value)).toBe(shown);
  });
  it('shows run time in minutes', () => expect(minutes(90_000)).toBe(1.5));

  it.each([
    [0, 100, false],
    [89, 100, false],
    [89.99, 100, false],
    [90, 100, true],
    [100, 100, true],
    [120, 100, true],
    [0, 0, false],
    [1, 0, true],
  ])('%d of %d allocated is red: %s', (used, capacity, red) => {
    expect(usage(used, capacity).red).toBe(red);
  });
  it('never has negative free space', () => expect(usage(120, 100).free).toBe(0));
});

describe('series shaping', () => {
  it('merges the series by time, one column per item, in display units', () => {
    const items = [
      {
        id: 'm1',
        cpu: [
          { x: '2026-11-02T00:00:00.000Z', y: 2000 },
          { x: '2026-11-01T00:00:00.000Z', y: 1000 },
        ],
        memory: [],
        disk: [],
      },
      { id: 'm2', cpu: [{ x: '2026-11-01T00:00:00.000Z', y: 500 }], memory: [], disk: [] },
    ];
    expect(mergeSeries(items, 'cpu')).toEqual([
      { x: Date.parse('2026-11-01T00:00:00.000Z'), m1: 1, m2: 0.5 },
      { x: Date.parse('2026-11-02T00:00:00.000Z'), m1: 2 },
    ]);
    expect(mergeSeries(items, 'memory')).toEqual([]);
  });
  it('sums capacities into the limit line', () => {
    expect(
      limitOf('memory', [
        { cpu: 1000, memory: 1024, disk: 0 },
        { cpu: 1000, memory: 3072, disk: 0 },
      ]),
    ).toBe(4);
  });
});

describe("the 'session~run' picker", () => {
  const sessions = ['nightly', 'nightly-eu', 'weekly'];
  const runs = ['run-2026-11-01', 'run-2026-11-02', 'other'];
  it.each([
    ['w', 'weekly~'],
    ['WEEK', 'weekly~'],
    ['n', 'nightly'],
    ['nightly', 'nightly~'],
    ['nightly-', 'nightly-eu~'],
    ['x', 'x'],
    ['weekly~o', 'weekly~other'],
    ['weekly~r', 'weekly~run-2026-11-0'],
    ['weekly~run-2026-11-0', 'weekly~run-2026-11-0'],
    ['weekly~z', 'weekly~z'],
  ])('completes %j to %j', (typed, completed) => {
    expect(completeRunQuery(typed, sessions, runs)).toBe(completed);
  });
  it.each([
    ['nightly', { session: 'nightly', run: null }],
    ['nightly~', { session: 'nightly', run: '' }],
    ['nightly~r~1', { session: 'nightly', run: 'r~1' }],
  ])('reads %j', (typed, query) => expect(parseRunQuery(typed)).toEqual(query));
  it('names a run by the first 8 characters of its uuid', () =>
    expect(runKey('aaaa1111-0000-4000-8000-000000000101')).toBe('aaaa1111'));
});

describe('roles', () => {
  it.each([
    ['admin', true],
    ['organization_admin', true],
    ['group_admin', false],
    ['user', false],
    [null, false],
  ] as const)('%s is administrator-type: %s', (role, admin) => expect(isAdministrator(role)).toBe(admin));
});

describe('valueAxis', () => {
  it.each([
    [0, 1, [0, 0.2, 0.4, 0.6, 0.8, 1]],
    [2, 2.5, [0, 0.5, 1, 1.5, 2, 2.5]],
    [23.54, 30, [0, 10, 20, 30]],
    [68.52, 80, [0, 20, 40, 60, 80]],
    [0.3, 0.4, [0, 0.1, 0.2, 0.3, 0.4]],
    [4096, 5000, [0, 1000, 2000, 3000, 4000, 5000]],
    [9, 10, [0, 2, 4, 6, 8, 10]],
  ])('top %s ends at %s on round ticks', (top, max, ticks) => {
    expect(valueAxis(top)).toEqual({ max, ticks });
  });

  it.each([0.01, 1, 7.7, 99, 1234.5, 1e6])('keeps a tenth of headroom above %s', (top) => {
    const { max, ticks } = valueAxis(top);
    expect(max).toBeGreaterThanOrEqual(top * 1.1 - 1e-9);
    expect(ticks.length).toBeLessThanOrEqual(6);
    expect(ticks[0]).toBe(0);
  });
});
