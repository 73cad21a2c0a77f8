/** Settings tables page at 10, 20 or 50 rows, 10 by default (spec 3 §9). */
export const PAGE_SIZES = [10, 20, 50];

export type SortDirection = 'asc' | 'desc';

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
