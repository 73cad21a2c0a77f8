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
  TablePagination,
  TableRow,
  TableSortLabel,
  Typography,
} from '@mui/material';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink } from 'react-router';
import { SessionRow, type SessionRowActions } from './SessionRow';
import type { SessionItem } from './types';

export type SortKey = 'name' | 'workflow' | 'creationDate';
export interface Sort {
  key: SortKey;
  order: 'asc' | 'desc';
}
export const PAGE_SIZES = [15, 30, 50] as const;

const SORTABLE: { key: SortKey; label: string }[] = [
  { key: 'name', label: 'columns.name' },
  { key: 'workflow', label: 'columns.workflow' },
];

export function SessionTable(props: {
  rows: SessionItem[] | undefined;
  page: SessionItem[];
  /** How many rows the search and toggles keep (all pages). */
  count: number;
  pageIndex: number;
  size: number;
  filtered: boolean;
  loading: boolean;
  error?: string;
  sort: Sort;
  selected: string[];
  starting: string | null;
  isStartLocked: (uuid: string) => boolean;
  compact: boolean;
  actions: SessionRowActions;
  onSelectPage: (ids: string[]) => void;
  onSort: (key: SortKey) => void;
  onPage: (page: number) => void;
  onSize: (size: number) => void;
  onRetry: () => void;
}) {
  const { t } = useTranslation('sessions');
  const { rows, page, sort, selected, compact } = props;
  if (props.error && !rows)
    return (
      <Alert severity="error" action={<Button onClick={props.onRetry}>{t('retry')}</Button>}>
        {t('loadFailed')}: {props.error}
      </Alert>
    );
  if (!rows)
    return (
      <Box sx={{ display: 'grid', placeItems: 'center', p: 6 }}>
        <CircularProgress aria-label={t('loading')} />
      </Box>
    );
  if (page.length === 0)
    return (
      <Paper variant="outlined" sx={{ p: 4, textAlign: 'center' }} data-testid="empty">
        <Typography color="text.secondary" gutterBottom>
          {t(props.filtered ? 'filteredEmpty' : 'noSession')}
        </Typography>
        {!props.filtered && (
          <Button variant="contained" component={RouterLink} to="/session/create">
            {t('createNew')}
          </Button>
        )}
      </Paper>
    );
  const ids = page.map((s) => s.uuid);
  const all = ids.every((id) => selected.includes(id));
  const label = (key: SortKey, text: string) => (
    <TableCell key={key} sortDirection={sort.key === key ? sort.order : false}>
      <TableSortLabel
        active={sort.key === key}
        direction={sort.key === key ? sort.order : 'asc'}
        onClick={() => props.onSort(key)}
      >
        {text}
      </TableSortLabel>
    </TableCell>
  );
  return (
    <Paper variant="outlined">
      {props.loading && <LinearProgress aria-label={t('loading')} />}
      <TableContainer>
        <Table size="small" aria-label={t('listTitle')}>
          <TableHead>
            <TableRow>
              <TableCell padding="checkbox">
                <Checkbox
                  checked={all}
                  indeterminate={!all && ids.some((id) => selected.includes(id))}
                  onChange={() => props.onSelectPage(all ? [] : ids)}
                  slotProps={{ input: { 'aria-label': t('selectAll') } }}
                />
              </TableCell>
              {SORTABLE.map((c) => label(c.key, t(c.label)))}
              {!compact && <TableCell>{t('columns.schedule')}</TableCell>}
              {!compact && label('creationDate', t('columns.creationDate'))}
              <TableCell align="right">{t('columns.actions')}</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {page.map((session) => (
              <SessionRow
                key={session.uuid}
                session={session}
                selected={selected.includes(session.uuid)}
                starting={props.starting === session.uuid}
                startLocked={props.isStartLocked(session.uuid)}
                compact={compact}
                actions={props.actions}
              />
            ))}
          </TableBody>
        </Table>
      </TableContainer>
      <TablePagination
        component="div"
        count={props.count}
        page={props.pageIndex}
        rowsPerPage={props.size}
        rowsPerPageOptions={[...PAGE_SIZES]}
        labelRowsPerPage={t('rowsPerPage')}
        onPageChange={(_e, p) => props.onPage(p)}
        onRowsPerPageChange={(e) => props.onSize(Number(e.target.value))}
      />
    </Paper>
  );
}
