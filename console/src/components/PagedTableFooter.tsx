import { TablePagination } from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

export interface PagedTableFooterProps {
  /** All the rows, not only the page's. */
  count: number;
  /** The page shown, from 0. */
  page: number;
  size: number;
  sizes: readonly number[];
  onPage: (page: number) => void;
  onSize: (size: number) => void;
}

/**
 * A table's paging footer: the rows shown of all, the page size among `sizes`, previous and
 * next. The settings tables (spec 3 §9: 10/20/50), the billing page, the run's files and the
 * sandbox, workflow and session lists share it.
 */
export function PagedTableFooter({ count, page, size, sizes, onPage, onSize }: PagedTableFooterProps) {
  // In the person's language: MUI's own labels are English.
  const { t } = useTranslation('common');
  return (
    <TablePagination
      component="div"
      count={count}
      page={page}
      rowsPerPage={size}
      rowsPerPageOptions={[...sizes]}
      labelRowsPerPage={t('rowsPerPage')}
      labelDisplayedRows={({ from, to, count }) => t('displayedRows', { from, to, count })}
      onPageChange={(_e, next) => onPage(next)}
      onRowsPerPageChange={(e) => onSize(Number(e.target.value))}
    />
  );
}

/** `page`, or the last page of `count` rows at `size` a page when the rows have shrunk under it. */
export const clampPage = (page: number, count: number, size: number) =>
  Math.min(page, Math.max(0, Math.ceil(count / size) - 1));

/**
 * Paging of rows the browser holds, at the first of `sizes` a page at first. `of(rows)` gives the
 * page's rows and the footer's props, on the last page when the rows have shrunk under the one
 * chosen; a new page size goes back to the first page, and so does `reset` (a new search).
 */
export function usePaging(sizes: readonly number[]) {
  const [page, setPage] = useState(0);
  const [size, setSize] = useState(sizes[0]!);
  return {
    reset: () => setPage(0),
    of<T>(rows: readonly T[]): { rows: T[]; footer: PagedTableFooterProps } {
      const shown = clampPage(page, rows.length, size);
      return {
        rows: rows.slice(shown * size, shown * size + size),
        footer: {
          count: rows.length,
          page: shown,
          size,
          sizes,
          onPage: setPage,
          onSize: (next) => {
            setSize(next);
            setPage(0);
          },
        },
      };
    },
  };
}
