import AddIcon from '@mui/icons-material/Add';
import DeleteOutline from '@mui/icons-material/DeleteOutlined';
import EditOutlined from '@mui/icons-material/EditOutlined';
import {
  Button,
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
} from '@mui/material';
import { useMemo, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { SearchField } from '../common/SearchField';
import { toastFailure, toastSuccess } from '../../toasts/outcome';
import { ConfirmDialog } from '../common/ConfirmDialog';
import { PagedTableFooter, usePaging } from '../../../components/PagedTableFooter';
import { PAGE_SIZES, sortRows, type SortDirection } from '../common/table';
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
  const [search, setSearch] = useState('');
  const [sort, setSort] = useState<{ column: Column; direction: SortDirection }>({
    column: 'name',
    direction: 'asc',
  });
  const paging = usePaging(PAGE_SIZES);
  const [dialog, setDialog] = useState<{ group?: GroupItem } | null>(null);
  const [deleting, setDeleting] = useState<GroupItem | null>(null);

  const emails = useMemo(() => new Map(people.map((p) => [p.id, p.email])), [people]);
  const visible = useMemo(() => {
    const needle = search.trim().toLowerCase();
    const matches = (g: GroupItem) =>
      !needle ||
      [g.name, g.organization_name, ...[...g.admins, ...g.members].map((id) => emails.get(id) ?? '')].some(
        (s) => s.toLowerCase().includes(needle),
      );
    return sortRows(groups.filter(matches), VALUE[sort.column], sort.direction);
  }, [groups, search, sort, emails]);

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
    <TableCell key={column} sortDirection={sort.column === column ? sort.direction : false}>
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
        {t(`groups.columns.${column}`)}
      </TableSortLabel>
    </TableCell>
  );

  const cell = (g: GroupItem, column: Column) => {
    const shown = toDisplay(g.quota);
    if (column === 'cpu' || column === 'memory' || column === 'disk') return shown[column];
    return VALUE[column](g);
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
          label={t('groups.search')}
        />
        {toolbar}
        <Button
          variant="contained"
          startIcon={<AddIcon />}
          disabled={!organization}
          onClick={() => setDialog({})}
          sx={{ ml: { sm: 'auto !important' } }}
        >
          {t('groups.create')}
        </Button>
      </Stack>
      <TableContainer component={Paper} variant="outlined">
        <Table size="small" aria-label={t('groups.table')}>
          <TableHead>
            <TableRow>
              {columns.map(header)}
              <TableCell align="right">{t('columns.actions')}</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {visible.length === 0 && (
              <TableRow>
                <TableCell colSpan={columns.length + 1} align="center">
                  {t('noData')}
                </TableCell>
              </TableRow>
            )}
            {paged.rows.map((g) => (
              <TableRow key={g.id} hover>
                {columns.map((column) => (
                  <TableCell key={column}>{cell(g, column)}</TableCell>
                ))}
                <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                  <Tooltip title={t('groups.edit')}>
                    <IconButton
                      aria-label={t('groups.editNamed', { name: g.name })}
                      onClick={() => setDialog({ group: g })}
                    >
                      <EditOutlined fontSize="small" />
                    </IconButton>
                  </Tooltip>
                  <Tooltip title={t('groups.delete')}>
                    <IconButton
                      aria-label={t('groups.deleteNamed', { name: g.name })}
                      onClick={() => setDeleting(g)}
                    >
                      <DeleteOutline fontSize="small" />
                    </IconButton>
                  </Tooltip>
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
        <PagedTableFooter {...paged.footer} />
      </TableContainer>
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
