import DeleteOutline from '@mui/icons-material/DeleteOutlined';
import PersonAddAlt from '@mui/icons-material/PersonAddAlt';
import { Chip, Stack, TableCell, TableRow } from '@mui/material';
import { useMemo, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { toastFailure, toastSuccess } from '../../toasts/outcome';
import { ConfirmDialog } from '../common/ConfirmDialog';
import { TableToolbar } from '../common/TableToolbar';
import { usePaging } from '../../../components/PagedTableFooter';
import { ActionsCell, PagedTable, RowAction } from '../../../components/PagedTable';
import { PAGE_SIZES, useSearch } from '../common/table';
import { useRemoveUser } from '../queries';
import type { UserItem } from '../types';
import { userMatches } from './search';

/**
 * People with a search box, an Invite new User button and a delete confirmation (spec 3
 * §2.3). Deleting removes the person from `organization` when one is given (Organization
 * Settings), otherwise deletes the account (Super Settings, the super admin only).
 */
export function UsersTable({
  users,
  organization,
  me,
  showOrganizations = false,
  toolbar,
  onInvite,
}: {
  users: readonly UserItem[];
  organization?: string;
  me: string;
  showOrganizations?: boolean;
  toolbar?: ReactNode;
  onInvite: () => void;
}) {
  const { t } = useTranslation('settings');
  const remove = useRemoveUser();
  const paging = usePaging(PAGE_SIZES);
  const search = useSearch(paging);
  const [deleting, setDeleting] = useState<UserItem | null>(null);
  const visible = useMemo(() => users.filter((u) => userMatches(u, search.text)), [users, search.text]);
  const paged = paging.of(visible);

  return (
    <Stack spacing={2}>
      <TableToolbar
        search={search}
        searchLabel={t('users.search')}
        action={{ label: t('invite.button'), icon: <PersonAddAlt />, onClick: onInvite }}
      >
        {toolbar}
      </TableToolbar>
      <PagedTable
        label={t('users.table')}
        head={
          <>
            <TableCell>{t('columns.name')}</TableCell>
            <TableCell>{t('columns.email')}</TableCell>
            <TableCell>{t(showOrganizations ? 'columns.organizations' : 'columns.groups')}</TableCell>
            <TableCell>{t('columns.status')}</TableCell>
            <TableCell align="right">{t('columns.actions')}</TableCell>
          </>
        }
        columns={5}
        empty={t('noData')}
        footer={paged.footer}
      >
        {paged.rows.map((u) => (
          <TableRow key={u.id} hover>
            <TableCell>{u.fullName}</TableCell>
            <TableCell>{u.email}</TableCell>
            <TableCell>
              {(showOrganizations
                ? u.organizations
                : u.groups.filter((g) => !organization || g.organization === organization)
              )
                .map((x) => x.name)
                .join(', ')}
            </TableCell>
            <TableCell>
              <Chip
                size="small"
                color={u.verified ? 'success' : 'default'}
                label={t(u.verified ? 'users.accepted' : 'users.pending')}
              />
            </TableCell>
            <ActionsCell>
              <RowAction
                title={t('users.delete')}
                label={t('users.deleteNamed', { name: u.email })}
                icon={<DeleteOutline fontSize="small" />}
                disabled={u.id === me}
                onClick={() => setDeleting(u)}
              />
            </ActionsCell>
          </TableRow>
        ))}
      </PagedTable>
      <ConfirmDialog
        open={Boolean(deleting)}
        title={t('users.deleteTitle')}
        text={t(organization ? 'users.removeText' : 'users.deleteText', { name: deleting?.email ?? '' })}
        busy={remove.isPending}
        onClose={() => setDeleting(null)}
        onConfirm={() =>
          remove.mutate(
            { user: deleting!.id, organization },
            {
              onSuccess: () => {
                toastSuccess(t('users.deleted', { name: deleting!.email }));
                setDeleting(null);
              },
              onError: (e) => toastFailure(e),
            },
          )
        }
      />
    </Stack>
  );
}
