import {
  IconButton,
  Paper,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  TableSortLabel,
  Tooltip,
  type SxProps,
  type Theme,
} from '@mui/material';
import type { ReactNode } from 'react';
import { PagedTableFooter, type PagedTableFooterProps } from './PagedTableFooter';

/**
 * A small outlined table named `label` for screen readers, its `head` cells in one row, its
 * page's rows, and the paging footer. When there are no rows at all (`footer.count` 0) the body
 * holds one row across the `columns` saying `empty`.
 */
export function PagedTable({
  label,
  head,
  columns,
  empty,
  footer,
  children,
}: {
  label: string;
  head: ReactNode;
  /** How many columns `head` has, for the empty row's span. */
  columns: number;
  empty: ReactNode;
  footer: PagedTableFooterProps;
  children: ReactNode;
}) {
  return (
    <TableContainer component={Paper} variant="outlined">
      <Table size="small" aria-label={label}>
        <TableHead>
          <TableRow>{head}</TableRow>
        </TableHead>
        <TableBody>
          {footer.count === 0 && (
            <TableRow>
              <TableCell colSpan={columns} align="center">
                {empty}
              </TableCell>
            </TableRow>
          )}
          {children}
        </TableBody>
      </Table>
      <PagedTableFooter {...footer} />
    </TableContainer>
  );
}

/** A column header that sorts its table when clicked: `active` when the table is sorted by it. */
export function SortableHeaderCell({
  active,
  direction,
  onSort,
  sx,
  children,
}: {
  active: boolean;
  /** The table's direction; the header shows it only when `active`. */
  direction: 'asc' | 'desc';
  onSort: () => void;
  sx?: SxProps<Theme>;
  children: ReactNode;
}) {
  return (
    <TableCell sortDirection={active ? direction : false} sx={sx}>
      <TableSortLabel active={active} direction={active ? direction : 'asc'} onClick={onSort}>
        {children}
      </TableSortLabel>
    </TableCell>
  );
}

/** The right-aligned cell of a row's action buttons, kept on one line. */
export function ActionsCell({ children }: { children: ReactNode }) {
  return (
    <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
      {children}
    </TableCell>
  );
}

/**
 * One of a row's icon buttons: `title` as its tooltip, `label` (naming the row) for screen
 * readers. Given `disabled`, the button sits in a span so the tooltip still shows when it is.
 */
export function RowAction({
  title,
  label,
  icon,
  onClick,
  disabled,
}: {
  title: string;
  label: string;
  icon: ReactNode;
  onClick: () => void;
  disabled?: boolean;
}) {
  const button = (
    <IconButton aria-label={label} disabled={disabled} onClick={onClick}>
      {icon}
    </IconButton>
  );
  return <Tooltip title={title}>{disabled === undefined ? button : <span>{button}</span>}</Tooltip>;
}
