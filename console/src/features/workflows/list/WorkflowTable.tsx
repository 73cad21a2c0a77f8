import { TableCell } from '@mui/material';
import { useTranslation } from 'react-i18next';
import {
  ListEmpty,
  ListLoadError,
  ListLoading,
  ListTable,
  SelectAllCell,
} from '../../../components/ListTable';
import { SortableHeaderCell } from '../../../components/PagedTable';
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
      <ListLoadError
        message={`${t('loadFailed')}: ${props.error}`}
        retry={t('retry')}
        onRetry={props.onRetry}
      />
    );
  if (!rows) return <ListLoading label={t('loading')} />;
  if (rows.length === 0 && !props.loading)
    return (
      <ListEmpty
        text={t(props.filtered ? 'filteredEmpty' : 'noWorkflow')}
        {...(!props.filtered && { create: { label: t('createNew'), to: '/workflow/create' } })}
      />
    );
  return (
    <ListTable
      label={t('listTitle')}
      loading={props.loading}
      loadingLabel={t('loading')}
      head={
        <>
          <SelectAllCell
            ids={rows.filter((w) => w.user_access.owner).map((w) => w.uuid)}
            selected={selected}
            label={t('selectAll')}
            onSelect={props.onSelectAll}
          />
          <SortableHeaderCell
            active={query.sort === 'name'}
            direction={query.order}
            onSort={props.onSortByName}
          >
            {t('columns.name')}
          </SortableHeaderCell>
          {!compact && <TableCell>{t('columns.owner')}</TableCell>}
          {!compact && <TableCell>{t('columns.visibility')}</TableCell>}
          {!compact && <TableCell>{t('columns.tags')}</TableCell>}
          <TableCell>{t('columns.version')}</TableCell>
          {!compact && <TableCell>{t('columns.creationDate')}</TableCell>}
          <TableCell align="right">{t('columns.actions')}</TableCell>
          <TableCell padding="checkbox" />
        </>
      }
      footer={{
        count: props.total,
        page: query.page,
        size: query.size,
        sizes: PAGE_SIZES,
        onPage: props.onPage,
        onSize: props.onSize,
      }}
    >
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
    </ListTable>
  );
}
