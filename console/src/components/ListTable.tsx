import {
  Alert,
  Box,
  Button,
  Checkbox,
  CircularProgress,
  LinearProgress,
  Paper,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import type { ReactNode } from 'react';
import { Link as RouterLink } from 'react-router';
import { PagedTableFooter, type PagedTableFooterProps } from './PagedTableFooter';

/*
 * The pieces of the sandbox, workflow and session lists (paged on the server or in the browser):
 * what shows instead of the table (a load failure, a spinner, an empty note) and the table itself.
 */

/** The list could not be loaded: `message` and a `retry` button. */
export function ListLoadError({
  message,
  retry,
  onRetry,
}: {
  message: ReactNode;
  retry: string;
  onRetry: () => void;
}) {
  return (
    <Alert severity="error" action={<Button onClick={onRetry}>{retry}</Button>}>
      {message}
    </Alert>
  );
}

/** The list's first page is on its way. */
export function ListLoading({ label }: { label: string }) {
  return (
    <Box sx={{ display: 'grid', placeItems: 'center', p: 6 }}>
      <CircularProgress aria-label={label} />
    </Box>
  );
}

/** The list has no rows: `text`, and a button to `create.to` when given. */
export function ListEmpty({ text, create }: { text: string; create?: { label: string; to: string } }) {
  return (
    <Paper variant="outlined" sx={{ p: 4, textAlign: 'center' }} data-testid="empty">
      <Typography color="text.secondary" gutterBottom>
        {text}
      </Typography>
      {create && (
        <Button variant="contained" component={RouterLink} to={create.to}>
          {create.label}
        </Button>
      )}
    </Paper>
  );
}

/**
 * The header's checkbox selecting all the `ids` that may be selected (checked when all are,
 * indeterminate when some are, disabled when there are none); a click selects them or none.
 */
export function SelectAllCell({
  ids,
  selected,
  label,
  onSelect,
}: {
  ids: readonly string[];
  selected: readonly string[];
  label: string;
  onSelect: (ids: string[]) => void;
}) {
  const all = ids.length > 0 && ids.every((id) => selected.includes(id));
  return (
    <TableCell padding="checkbox">
      <Checkbox
        disabled={ids.length === 0}
        checked={all}
        indeterminate={!all && ids.some((id) => selected.includes(id))}
        onChange={() => onSelect(all ? [] : [...ids])}
        slotProps={{ input: { 'aria-label': label } }}
      />
    </TableCell>
  );
}

/**
 * An outlined table named `label` with a progress bar while `loading`, its `head` cells in one
 * row, the rows and the paging footer; without a `footer` (no page yet) an empty space holds its place.
 */
export function ListTable({
  label,
  loading,
  loadingLabel,
  head,
  footer,
  children,
}: {
  label: string;
  loading: boolean;
  loadingLabel: string;
  head: ReactNode;
  footer: PagedTableFooterProps | undefined;
  children: ReactNode;
}) {
  return (
    <Paper variant="outlined">
      {loading && <LinearProgress aria-label={loadingLabel} />}
      <TableContainer>
        <Table size="small" aria-label={label}>
          <TableHead>
            <TableRow>{head}</TableRow>
          </TableHead>
          <TableBody>{children}</TableBody>
        </Table>
      </TableContainer>
      {footer ? <PagedTableFooter {...footer} /> : <Box sx={{ height: 120 }} />}
    </Paper>
  );
}
