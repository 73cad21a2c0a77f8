import AddIcon from '@mui/icons-material/Add';
import MoreVert from '@mui/icons-material/MoreVert';
import { Box, Button, Chip, Paper, Stack, TableCell, TableRow, Tooltip, Typography } from '@mui/material';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { formatDateTime } from '../../../lib/datetime';
import { usePaging } from '../../../components/PagedTableFooter';
import { ActionsCell, PagedTable, RowAction, SortableHeaderCell } from '../../../components/PagedTable';
import { TableToolbar } from '../common/TableToolbar';
import { PAGE_SIZES, sortRows, useSearch, useSort } from '../common/table';
import { toDisplay } from '../quota';
import type { ClusterItem } from './queries';

type Column = 'address' | 'name' | 'cpu' | 'memory' | 'disk' | 'creationDate' | 'lastUpdate';
const COLUMNS: Column[] = ['address', 'name', 'cpu', 'memory', 'disk', 'creationDate', 'lastUpdate'];
/** Dates may wrap (date over time), so the table fits a desktop screen without scrolling. */
const DATES = new Set<Column>(['creationDate', 'lastUpdate']);
const VALUE: Record<Column, (c: ClusterItem) => string | number> = {
  address: (c) => c.address || c.id,
  name: (c) => c.name,
  cpu: (c) => c.cpu,
  memory: (c) => c.memory,
  disk: (c) => c.disk,
  creationDate: (c) => Date.parse(c.creationDate) || 0,
  lastUpdate: (c) => (c.lastUpdate ? Date.parse(c.lastUpdate) || 0 : 0),
};

/** The dot colours of the connection states (spec 3 §4: < 2 min, 2–3 min, > 3 min). */
export const DOT_COLOUR: Record<ClusterItem['connection'], 'success' | 'warning' | 'error'> = {
  connected: 'success',
  connecting: 'warning',
  closed: 'error',
};

function ConnectionDot({ connection }: { connection: ClusterItem['connection'] }) {
  const { t } = useTranslation('settings');
  const label = t(`clusters.connection.${connection}`);
  return (
    <Tooltip title={label}>
      <Box
        role="img"
        aria-label={label}
        data-connection={connection}
        sx={{
          width: 12,
          height: 12,
          borderRadius: '50%',
          bgcolor: `${DOT_COLOUR[connection]}.main`,
          display: 'inline-block',
        }}
      />
    </Tooltip>
  );
}

const number = (value: number) => Number(value.toFixed(2)).toString();

/**
 * The cluster-manager table of Organization Settings (spec 3 §2.3): a connection dot, ID
 * (address), Name, CPU Cores, Memory (GB), Disk space (GB), Added Date and Last seen; search,
 * sort, pages of 10/20/50; 'No clusters to show' when a search matches nothing and an empty
 * state with Generate Token when there are none. Each row's menu opens its flyout.
 */
export function ClustersTable({
  clusters,
  onAdd,
  onOpen,
}: {
  clusters: readonly ClusterItem[];
  onAdd: () => void;
  onOpen: (cluster: ClusterItem) => void;
}) {
  const { t } = useTranslation('settings');
  const paging = usePaging(PAGE_SIZES);
  const search = useSearch(paging);
  const { sort, headerOf } = useSort<Column>('creationDate');

  const visible = useMemo(() => {
    const needle = search.text.trim().toLowerCase();
    const matches = (c: ClusterItem) =>
      !needle || [c.name, c.address, c.id, c.label, c.version].some((s) => s.toLowerCase().includes(needle));
    return sortRows(clusters.filter(matches), VALUE[sort.column], sort.direction);
  }, [clusters, search.text, sort]);

  if (clusters.length === 0)
    return (
      <Paper variant="outlined" sx={{ p: 4, textAlign: 'center' }}>
        <Stack spacing={2} sx={{ alignItems: 'center' }}>
          <Typography variant="h6">{t('clusters.empty.title')}</Typography>
          <Typography color="text.secondary">{t('clusters.empty.text')}</Typography>
          <Button variant="contained" onClick={onAdd}>
            {t('clusters.generateToken')}
          </Button>
        </Stack>
      </Paper>
    );

  const header = (column: Column) => (
    <SortableHeaderCell key={column} {...headerOf(column)} sx={{ whiteSpace: 'nowrap' }}>
      {t(`clusters.columns.${column}`)}
    </SortableHeaderCell>
  );

  const cell = (c: ClusterItem, column: Column) => {
    const shown = toDisplay(c);
    switch (column) {
      case 'cpu':
      case 'memory':
      case 'disk':
        return number(shown[column]);
      case 'creationDate':
        return formatDateTime(c.creationDate);
      case 'lastUpdate':
        return c.lastUpdate ? formatDateTime(c.lastUpdate) : t('clusters.never');
      case 'name':
        return (
          <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
            <span>{c.name}</span>
            {c.isIlluminia && <Chip size="small" label={t('clusters.platform')} />}
            {c.public && !c.isIlluminia && <Chip size="small" label={t('clusters.public')} />}
            {c.disabled && <Chip size="small" color="warning" label={t('clusters.disabled')} />}
          </Stack>
        );
      default:
        return VALUE[column](c);
    }
  };

  const paged = paging.of(visible);
  return (
    <Stack spacing={2}>
      <TableToolbar
        search={search}
        searchLabel={t('clusters.search')}
        action={{ label: t('clusters.addNew'), icon: <AddIcon />, onClick: onAdd }}
      />
      <PagedTable
        label={t('clusters.table')}
        head={
          <>
            <TableCell padding="checkbox" aria-label={t('clusters.columns.connection')} />
            {COLUMNS.map(header)}
            <TableCell align="right">{t('columns.actions')}</TableCell>
          </>
        }
        columns={COLUMNS.length + 2}
        empty={t('clusters.noClusters')}
        footer={paged.footer}
      >
        {paged.rows.map((c) => (
          <TableRow key={c.id} hover data-testid="cluster-row">
            <TableCell padding="checkbox" sx={{ textAlign: 'center' }}>
              <ConnectionDot connection={c.connection} />
            </TableCell>
            {COLUMNS.map((column) => (
              <TableCell key={column} sx={{ whiteSpace: DATES.has(column) ? 'normal' : 'nowrap' }}>
                {cell(c, column)}
              </TableCell>
            ))}
            <ActionsCell>
              <RowAction
                title={t('clusters.actions')}
                label={t('clusters.actionsNamed', { name: c.name })}
                icon={<MoreVert fontSize="small" />}
                onClick={() => onOpen(c)}
              />
            </ActionsCell>
          </TableRow>
        ))}
      </PagedTable>
    </Stack>
  );
}
