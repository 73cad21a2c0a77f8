import { act, renderHook } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { nextSort, sortRows, useSort, type Sort } from './table';

const rows = [
  { name: 'beta', gid: 1002 },
  { name: 'Alpha', gid: 1010 },
  { name: 'gamma', gid: 1001 },
];

describe('settings tables', () => {
  it.each([
    ['name', 'asc', ['Alpha', 'beta', 'gamma']],
    ['name', 'desc', ['gamma', 'beta', 'Alpha']],
    ['gid', 'asc', ['gamma', 'beta', 'Alpha']],
    ['gid', 'desc', ['Alpha', 'beta', 'gamma']],
  ] as const)('sorts by %s %s', (column, direction, names) => {
    expect(sortRows(rows, (r) => r[column], direction).map((r) => r.name)).toEqual(names);
  });

  it.each<[Sort<'name' | 'gid'>, 'name' | 'gid', Sort<'name' | 'gid'>]>([
    [{ column: 'name', direction: 'asc' }, 'name', { column: 'name', direction: 'desc' }],
    [{ column: 'name', direction: 'desc' }, 'name', { column: 'name', direction: 'asc' }],
    [{ column: 'name', direction: 'asc' }, 'gid', { column: 'gid', direction: 'asc' }],
    [{ column: 'name', direction: 'desc' }, 'gid', { column: 'gid', direction: 'asc' }],
  ])('a click from %o on %s sorts %o', (sort, column, next) => {
    expect(nextSort(sort, column)).toEqual(next);
  });

  it.each([
    [['gid'], { column: 'gid', direction: 'asc' }, [false, true]],
    [['name'], { column: 'name', direction: 'desc' }, [true, false]],
    [['gid', 'gid'], { column: 'gid', direction: 'desc' }, [false, true]],
  ] as const)('useSort: clicks on %j sort %o', (clicks, sort, active) => {
    const { result } = renderHook(() => useSort<'name' | 'gid'>('name'));
    for (const column of clicks) act(() => result.current.headerOf(column).onSort());
    expect(result.current.sort).toEqual(sort);
    expect([result.current.headerOf('name').active, result.current.headerOf('gid').active]).toEqual(active);
    expect(result.current.headerOf('gid').direction).toBe(sort.direction);
  });
});
