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
import type { WorkflowItem, WorkflowListQuery } from '../types';
import { WorkflowRow, type RowActions } from './WorkflowRow';

/** Spec 2 §9. */
export const PAGE_SIZES = [15, 30, 50] as const;

export interface WorkflowTableProps {
  rows: WorkflowItem[] | undefined;
  total: number;
  query: WorkflowListQuery;
  filtered: boolean;
  loading: boolean;
  error?: string;
  selected: string[];
  expanded: string[];
  compact: boolean;
  tagColors: Map<string, string>;
  groups: { id: string; name: string }[];
  actions: RowActions;
  onSelectAll: (ids: string[]) => void;
  onSortByName: () => void;
  onPage: (page: number) => void;
  onSize: (size: number) => void;
  onRetry: () => void;
}

/** The workflows of one page (spec 2 §2 'Workflow list'), paged on the server. */
export function WorkflowTable(props: WorkflowTableProps) {
  const { t } = useTranslation('workflows');
  const { rows, query, selected, compact } = props;
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
  if (rows.length === 0 && !props.loading)
    return (
      <Paper variant="outlined" sx={{ p: 4, textAlign: 'center' }} data-testid="empty">
        <Typography color="text.secondary" gutterBottom>
          {t(props.filtered ? 'filteredEmpty' : 'noWorkflow')}
        </Typography>
        {!props.filtered && (
          <Button variant="contained" component={RouterLink} to="/workflow/create">
            {t('createNew')}
          </Button>
        )}
      </Paper>
    );
  const owned = rows.filter((w) => w.user_access.owner).map((w) => w.uuid);
  const allOwnedSelected = owned.length > 0 && owned.every((id) => selected.includes(id));
  return (
    <Paper variant="outlined">
      {props.loading && <LinearProgress aria-label={t('loading')} />}
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
              <TableCell sortDirection={query.sort === 'name' ? query.order : false}>
                <TableSortLabel
                  active={query.sort === 'name'}
                  direction={query.sort === 'name' ? query.order : 'asc'}
                  onClick={props.onSortByName}
                >
                  {t('columns.name')}
                </TableSortLabel>
              </TableCell>
              {!compact && <TableCell>{t('columns.owner')}</TableCell>}
              {!compact && <TableCell>{t('columns.visibility')}</TableCell>}
              {!compact && <TableCell>{t('columns.tags')}</TableCell>}
              <TableCell>{t('columns.version')}</TableCell>
              {!compact && <TableCell>{t('columns.creationDate')}</TableCell>}
              <TableCell align="right">{t('columns.actions')}</TableCell>
              <TableCell padding="checkbox" />
            </TableRow>
          </TableHead>
          <TableBody>
            {rows.map((workflow) => (
              <WorkflowRow
                key={workflow.uuid}
                workflow={workflow}
                selected={selected.includes(workflow.uuid)}
                expanded={props.expanded.includes(workflow.uuid)}
                compact={compact}
                tagColors={props.tagColors}
                groups={props.groups}
                actions={props.actions}
              />
            ))}
          </TableBody>
        </Table>
      </TableContainer>
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
    </Paper>
  );
}
