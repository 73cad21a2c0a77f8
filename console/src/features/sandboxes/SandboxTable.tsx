import {
  Alert,
  Box,
  Button,
  Checkbox,
  LinearProgress,
  Paper,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TablePagination,
  TableRow,
  TableSortLabel,
  Typography,
} from '@mui/material';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink } from 'react-router';
import { PAGE_SIZES } from './rules';
import { SandboxRow, type RowActions } from './SandboxRow';
import type { Sandbox, SandboxListQuery, SortColumn } from './types';

const SORTABLE: SortColumn[] = ['name', 'version', 'owner', 'architecture', 'creation_date'];
const COMPACT_SORTABLE: SortColumn[] = ['name', 'version'];

export interface SandboxTableProps {
  rows: Sandbox[] | undefined;
  total: number;
  query: SandboxListQuery;
  filtered: boolean;
  loading: boolean;
  error?: string;
  selected: string[];
  compact: boolean;
  tagColors: Map<string, string>;
  actions: RowActions;
  onSelectAll: (ids: string[]) => void;
  onSort: (column: SortColumn) => void;
  onPage: (page: number) => void;
  onSize: (size: number) => void;
  onRetry: () => void;
}

/** The sandboxes of one page, sortable by column, paged on the server (10, 30, 50). */
export function SandboxTable(props: SandboxTableProps) {
  const { t } = useTranslation('sandboxes');
  const { rows, query, selected, compact } = props;
  if (props.error && !rows)
    return (
      <Alert severity="error" action={<Button onClick={props.onRetry}>{t('retry')}</Button>}>
        {t('loadError')} {props.error}
      </Alert>
    );
  if (rows && rows.length === 0 && !props.loading)
    return (
      <Paper variant="outlined" sx={{ p: 4, textAlign: 'center' }} data-testid="empty">
        <Typography color="text.secondary" gutterBottom>
          {t(props.filtered ? 'emptyFiltered' : 'empty')}
        </Typography>
        <Button variant="contained" component={RouterLink} to="/sandbox/create">
          {t('createNew')}
        </Button>
      </Paper>
    );
  const owned = (rows ?? []).filter((s) => s.user_access.owner).map((s) => s.uuid);
  const allOwnedSelected = owned.length > 0 && owned.every((id) => selected.includes(id));
  const sortable = compact ? COMPACT_SORTABLE : SORTABLE;

  return (
    <Paper variant="outlined">
      {props.loading && <LinearProgress aria-label={t('loading', { ns: 'common' })} />}
      <TableContainer>
        <Table size="small" aria-label={t('listTitle')}>
          <TableHead>
            <TableRow>
              <TableCell padding="checkbox">
                <Checkbox
                  disabled={owned.length === 0}
                  checked={allOwnedSelected}
                  indeterminate={!allOwnedSelected && owned.some((id) => selected.includes(id))}
                  onChange={() => props.onSelectAll(allOwnedSelected ? [] : owned)}
                  slotProps={{ input: { 'aria-label': t('selectAll') } }}
                />
              </TableCell>
              <TableCell padding="checkbox" />
              {sortable.map((column) => (
                <TableCell key={column} sortDirection={query.sort === column ? query.order : false}>
                  <TableSortLabel
                    active={query.sort === column}
                    direction={query.sort === column ? query.order : 'asc'}
                    onClick={() => props.onSort(column)}
                  >
                    {t(`columns.${column}`)}
                  </TableSortLabel>
                </TableCell>
              ))}
              {!compact && <TableCell>{t('columns.tags')}</TableCell>}
              <TableCell align="right">{t('columns.actions')}</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {(rows ?? []).map((sandbox) => (
              <SandboxRow
                key={sandbox.uuid}
                sandbox={sandbox}
                selected={selected.includes(sandbox.uuid)}
                compact={compact}
                tagColors={props.tagColors}
                actions={props.actions}
              />
            ))}
          </TableBody>
        </Table>
      </TableContainer>
      {!rows && <Box sx={{ height: 120 }} />}
      {rows && (
        <TablePagination
          component="div"
          count={props.total}
          page={query.page}
          rowsPerPage={query.size}
          rowsPerPageOptions={[...PAGE_SIZES]}
          labelRowsPerPage={t('rowsPerPage')}
          labelDisplayedRows={({ from, to, count }) => t('displayedRows', { from, to, count })}
          onPageChange={(_e, page) => props.onPage(page)}
          onRowsPerPageChange={(e) => props.onSize(Number(e.target.value))}
        />
      )}
    </Paper>
  );
}
