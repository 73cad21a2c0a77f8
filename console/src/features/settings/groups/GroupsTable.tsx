import AddIcon from '@mui/icons-material/Add';
import DeleteOutline from '@mui/icons-material/DeleteOutlined';
import EditOutlined from '@mui/icons-material/EditOutlined';
import { Stack, TableCell, TableRow } from '@mui/material';
import { useMemo, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { toastFailure, toastSuccess } from '../../toasts/outcome';
import { ConfirmDialog } from '../common/ConfirmDialog';
import { TableToolbar } from '../common/TableToolbar';
import { usePaging } from '../../../components/PagedTableFooter';
import { ActionsCell, PagedTable, RowAction, SortableHeaderCell } from '../../../components/PagedTable';
import { PAGE_SIZES, sortRows, useSearch, useSort } from '../common/table';
import { useDeleteGroup } from '../queries';
import { groupMaxima, toDisplay } from '../quota';
import type { GroupItem, OrganizationItem, Username } from '../types';
import { GroupDialog } from './GroupDialog';

type Column = 'name' | 'organization' | 'gid' | 'cpu' | 'memory' | 'disk' | 'members';
const VALUE: Record<Column, (g: GroupItem) => string | number> = {
  name: (g) => g.name,
  organization: (g) => g.organization_name,
  gid: (g) => g.gid,
  cpu: (g) => g.quota.cpu,
  memory: (g) => g.quota.memory,
  disk: (g) => g.quota.disk,
  members: (g) => g.members.length,
};

/**
 * The groups table (spec 3 §2.3): search on name, organization, or an admin's or member's
 * e-mail; sortable columns; pages of 10/20/50; Create Group, Edit Group, delete. With
 * `showOrganization` (super admin) it has an organization column; new groups go to
 * `organization` (the filter's, or the current one).
 */
export function GroupsTable({
  groups,
  organizations,
  organization,
  people,
  showOrganization = false,
  toolbar,
}: {
  groups: readonly GroupItem[];
  organizations: readonly OrganizationItem[];
  organization: string | null;
  people: readonly Username[];
  showOrganization?: boolean;
  toolbar?: ReactNode;
}) {
  const { t } = useTranslation('settings');
  const remove = useDeleteGroup();
  const paging = usePaging(PAGE_SIZES);
  const search = useSearch(paging);
  const { sort, headerOf } = useSort<Column>('name');
  const [dialog, setDialog] = useState<{ group?: GroupItem } | null>(null);
  const [deleting, setDeleting] = useState<GroupItem | null>(null);

  const emails = useMemo(() => new Map(people.map((p) => [p.id, p.email])), [people]);
  const visible = useMemo(() => {
    const needle = search.text.trim().toLowerCase();
    const matches = (g: GroupItem) =>
      !needle ||
      [g.name, g.organization_name, ...[...g.admins, ...g.members].map((id) => emails.get(id) ?? '')].some(
        (s) => s.toLowerCase().includes(needle),
      );
    return sortRows(groups.filter(matches), VALUE[sort.column], sort.direction);
  }, [groups, search.text, sort, emails]);

  const dialogOrganization = dialog?.group?.organization ?? organization;
  const organizationQuota = organizations.find((o) => o.id === dialogOrganization)?.quota;
  const maxima = organizationQuota
    ? groupMaxima(
        organizationQuota,
        groups.filter((g) => g.organization === dialogOrganization).map((g) => ({ id: g.id, ...g.quota })),
        dialog?.group?.id,
      )
    : null;

  const columns: Column[] = showOrganization
    ? ['name', 'organization', 'gid', 'cpu', 'memory', 'disk', 'members']
    : ['name', 'gid', 'cpu', 'memory', 'disk', 'members'];
  const header = (column: Column) => (
    <SortableHeaderCell key={column} {...headerOf(column)}>
      {t(`groups.columns.${column}`)}
    </SortableHeaderCell>
  );

  const cell = (g: GroupItem, column: Column) => {
    const shown = toDisplay(g.quota);
    if (column === 'cpu' || column === 'memory' || column === 'disk') return shown[column];
    return VALUE[column](g);
  };

  const paged = paging.of(visible);
  return (
    <Stack spacing={2}>
      <TableToolbar
        search={search}
        searchLabel={t('groups.search')}
        action={{
          label: t('groups.create'),
          icon: <AddIcon />,
          onClick: () => setDialog({}),
          disabled: !organization,
        }}
      >
        {toolbar}
      </TableToolbar>
      <PagedTable
        label={t('groups.table')}
        head={
          <>
            {columns.map(header)}
            <TableCell align="right">{t('columns.actions')}</TableCell>
          </>
        }
        columns={columns.length + 1}
        empty={t('noData')}
        footer={paged.footer}
      >
        {paged.rows.map((g) => (
          <TableRow key={g.id} hover>
            {columns.map((column) => (
              <TableCell key={column}>{cell(g, column)}</TableCell>
            ))}
            <ActionsCell>
              <RowAction
                title={t('groups.edit')}
                label={t('groups.editNamed', { name: g.name })}
                icon={<EditOutlined fontSize="small" />}
                onClick={() => setDialog({ group: g })}
              />
              <RowAction
                title={t('groups.delete')}
                label={t('groups.deleteNamed', { name: g.name })}
                icon={<DeleteOutline fontSize="small" />}
                onClick={() => setDeleting(g)}
              />
            </ActionsCell>
          </TableRow>
        ))}
      </PagedTable>
      {dialog && dialogOrganization && (
        <GroupDialog
          open
          organization={dialogOrganization}
          group={dialog.group}
          maxima={maxima}
          people={people}
          onClose={() => setDialog(null)}
        />
      )}
      <ConfirmDialog
        open={Boolean(deleting)}
        title={t('groups.deleteTitle')}
        text={t('groups.deleteText', { name: deleting?.name ?? '' })}
        busy={remove.isPending}
        onClose={() => setDeleting(null)}
        onConfirm={() =>
          remove.mutate(deleting!.id, {
            onSuccess: () => {
              toastSuccess(t('groups.deleted', { name: deleting!.name }));
              setDeleting(null);
            },
            onError: (e) => toastFailure(e),
          })
        }
      />
    </Stack>
  );
}
