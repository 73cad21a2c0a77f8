import { describe, expect, it } from 'vitest';
import { sortRows } from './table';

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
});
