import { useState } from 'react';

/** Settings tables page at 10, 20 or 50 rows, 10 by default (spec 3 §9). */
export const PAGE_SIZES = [10, 20, 50];

export type SortDirection = 'asc' | 'desc';

export interface Sort<C extends string> {
  column: C;
  direction: SortDirection;
}

/** Rows sorted by a column's value (strings by locale, numbers numerically); a new array. */
export function sortRows<T>(
  rows: readonly T[],
  value: (row: T) => string | number,
  direction: SortDirection,
) {
  const sign = direction === 'asc' ? 1 : -1;
  return [...rows].sort((a, b) => {
    const x = value(a);
    const y = value(b);
    return (
      sign * (typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y)))
    );
  });
}

/** The sort after a click on `column`'s header: the other direction when it is sorted ascending by it, otherwise ascending by it. */
export const nextSort = <C extends string>(sort: Sort<C>, column: C): Sort<C> => ({
  column,
  direction: sort.column === column && sort.direction === 'asc' ? 'desc' : 'asc',
});

/**
 * A table's sort, by `column` in `direction` (ascending unless given) at first, and
 * `headerOf(column)`: the props of that column's SortableHeaderCell (sorted by it or not, the
 * direction, a click sorts by it).
 */
export function useSort<C extends string>(column: C, direction: SortDirection = 'asc') {
  const [sort, setSort] = useState<Sort<C>>({ column, direction });
  return {
    sort,
    headerOf: (header: C) => ({
      active: sort.column === header,
      direction: sort.direction,
      onSort: () => setSort((now) => nextSort(now, header)),
    }),
  };
}

export interface Search {
  text: string;
  onChange: (text: string) => void;
}

/** A table's search text; a new one goes back to the first page. */
export function useSearch(paging: { reset: () => void }): Search {
  const [text, setText] = useState('');
  return {
    text,
    onChange: (next) => {
      setText(next);
      paging.reset();
    },
  };
}
