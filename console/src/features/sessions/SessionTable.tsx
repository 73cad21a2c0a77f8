import { TableCell } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { ListEmpty, ListLoadError, ListLoading, ListTable, SelectAllCell } from '../../components/ListTable';
import { SortableHeaderCell } from '../../components/PagedTable';
import { SessionRow, type SessionRowActions } from './SessionRow';
import type { SessionItem } from './types';

export type SortKey = 'name' | 'workflow' | 'creationDate';
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
  /** The props of a column's sortable header (useSort's headerOf). */
  sortHeader: (key: SortKey) => { active: boolean; direction: 'asc' | 'desc'; onSort: () => void };
  selected: string[];
  starting: string | null;
  isStartLocked: (uuid: string) => boolean;
  compact: boolean;
  actions: SessionRowActions;
  onSelectPage: (ids: string[]) => void;
  onPage: (page: number) => void;
  onSize: (size: number) => void;
  onRetry: () => void;
}) {
  const { t } = useTranslation('sessions');
  const { rows, page, selected, compact } = props;
  if (props.error && !rows)
    return (
      <ListLoadError
        message={`${t('loadFailed')}: ${props.error}`}
        retry={t('retry')}
        onRetry={props.onRetry}
      />
    );
  if (!rows) return <ListLoading label={t('loading')} />;
  if (page.length === 0)
    return (
      <ListEmpty
        text={t(props.filtered ? 'filteredEmpty' : 'noSession')}
        {...(!props.filtered && { create: { label: t('createNew'), to: '/session/create' } })}
      />
    );
  const label = (key: SortKey, text: string) => (
    <SortableHeaderCell key={key} {...props.sortHeader(key)}>
      {text}
    </SortableHeaderCell>
  );
  return (
    <ListTable
      label={t('listTitle')}
      loading={props.loading}
      loadingLabel={t('loading')}
      head={
        <>
          <SelectAllCell
            ids={page.map((s) => s.uuid)}
            selected={selected}
            label={t('selectAll')}
            onSelect={props.onSelectPage}
          />
          {SORTABLE.map((c) => label(c.key, t(c.label)))}
          {!compact && <TableCell>{t('columns.schedule')}</TableCell>}
          {!compact && label('creationDate', t('columns.creationDate'))}
          <TableCell align="right">{t('columns.actions')}</TableCell>
        </>
      }
      footer={{
        count: props.count,
        page: props.pageIndex,
        size: props.size,
        sizes: PAGE_SIZES,
        onPage: props.onPage,
        onSize: props.onSize,
      }}
    >
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
    </ListTable>
  );
}
