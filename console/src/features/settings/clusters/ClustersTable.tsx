import AddIcon from '@mui/icons-material/Add';
import MoreVert from '@mui/icons-material/MoreVert';
import {
  Box,
  Button,
  Chip,
  IconButton,
  Paper,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  TableSortLabel,
  Tooltip,
  Typography,
} from '@mui/material';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { SearchField } from '../common/SearchField';
import { formatDateTime } from '../../../lib/datetime';
import { PagedTableFooter, usePaging } from '../../../components/PagedTableFooter';
import { PAGE_SIZES, sortRows, type SortDirection } from '../common/table';
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
  const [search, setSearch] = useState('');
  const [sort, setSort] = useState<{ column: Column; direction: SortDirection }>({
    column: 'creationDate',
    direction: 'asc',
  });
  const paging = usePaging(PAGE_SIZES);

  const visible = useMemo(() => {
    const needle = search.trim().toLowerCase();
    const matches = (c: ClusterItem) =>
      !needle || [c.name, c.address, c.id, c.label, c.version].some((s) => s.toLowerCase().includes(needle));
    return sortRows(clusters.filter(matches), VALUE[sort.column], sort.direction);
  }, [clusters, search, sort]);

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
    <TableCell
      key={column}
      sortDirection={sort.column === column ? sort.direction : false}
      sx={{ whiteSpace: 'nowrap' }}
    >
      <TableSortLabel
        active={sort.column === column}
        direction={sort.column === column ? sort.direction : 'asc'}
        onClick={() =>
          setSort((s) => ({
            column,
            direction: s.column === column && s.direction === 'asc' ? 'desc' : 'asc',
          }))
        }
      >
        {t(`clusters.columns.${column}`)}
      </TableSortLabel>
    </TableCell>
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
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ alignItems: { sm: 'center' } }}>
        <SearchField
          value={search}
          onChange={(value) => {
            setSearch(value);
            paging.reset();
          }}
          label={t('clusters.search')}
        />
        <Button
          variant="contained"
          startIcon={<AddIcon />}
          onClick={onAdd}
          sx={{ ml: { sm: 'auto !important' } }}
        >
          {t('clusters.addNew')}
        </Button>
      </Stack>
      <TableContainer component={Paper} variant="outlined">
        <Table size="small" aria-label={t('clusters.table')}>
          <TableHead>
            <TableRow>
              <TableCell padding="checkbox" aria-label={t('clusters.columns.connection')} />
              {COLUMNS.map(header)}
              <TableCell align="right">{t('columns.actions')}</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {visible.length === 0 && (
              <TableRow>
                <TableCell colSpan={COLUMNS.length + 2} align="center">
                  {t('clusters.noClusters')}
                </TableCell>
              </TableRow>
            )}
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
                <TableCell align="right">
                  <Tooltip title={t('clusters.actions')}>
                    <IconButton
                      aria-label={t('clusters.actionsNamed', { name: c.name })}
                      onClick={() => onOpen(c)}
                    >
                      <MoreVert fontSize="small" />
                    </IconButton>
                  </Tooltip>
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
        <PagedTableFooter {...paged.footer} />
      </TableContainer>
    </Stack>
  );
}
