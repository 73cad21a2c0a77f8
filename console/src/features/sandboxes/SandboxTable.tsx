import { TableCell } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { ListEmpty, ListLoadError, ListTable, SelectAllCell } from '../../components/ListTable';
import { SortableHeaderCell } from '../../components/PagedTable';
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
      <ListLoadError
        message={`${t('loadError')} ${props.error}`}
        retry={t('retry')}
        onRetry={props.onRetry}
      />
    );
  if (rows && rows.length === 0 && !props.loading)
    return (
      <ListEmpty
        text={t(props.filtered ? 'emptyFiltered' : 'empty')}
        create={{ label: t('createNew'), to: '/sandbox/create' }}
      />
    );
  const owned = (rows ?? []).filter((s) => s.user_access.owner).map((s) => s.uuid);
  const sortable = compact ? COMPACT_SORTABLE : SORTABLE;

  return (
    <ListTable
      label={t('listTitle')}
      loading={props.loading}
      loadingLabel={t('loading', { ns: 'common' })}
      head={
        <>
          <SelectAllCell
            ids={owned}
            selected={selected}
            label={t('selectAll')}
            onSelect={props.onSelectAll}
          />
          <TableCell padding="checkbox" />
          {sortable.map((column) => (
            <SortableHeaderCell
              key={column}
              active={query.sort === column}
              direction={query.order}
              onSort={() => props.onSort(column)}
            >
              {t(`columns.${column}`)}
            </SortableHeaderCell>
          ))}
          {!compact && <TableCell>{t('columns.tags')}</TableCell>}
          <TableCell align="right">{t('columns.actions')}</TableCell>
        </>
      }
      footer={
        rows && {
          count: props.total,
          page: query.page,
          size: query.size,
          sizes: PAGE_SIZES,
          onPage: props.onPage,
          onSize: props.onSize,
        }
      }
    >
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
    </ListTable>
  );
}
