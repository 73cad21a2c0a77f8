import DeleteOutline from '@mui/icons-material/DeleteOutlined';
import PersonAddAlt from '@mui/icons-material/PersonAddAlt';
import {
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
  Tooltip,
} from '@mui/material';
import { useMemo, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { SearchField } from '../common/SearchField';
import { toastFailure, toastSuccess } from '../../toasts/outcome';
import { ConfirmDialog } from '../common/ConfirmDialog';
import { PagedTableFooter, usePaging } from '../../../components/PagedTableFooter';
import { PAGE_SIZES } from '../common/table';
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
  const [search, setSearch] = useState('');
  const paging = usePaging(PAGE_SIZES);
  const [deleting, setDeleting] = useState<UserItem | null>(null);
  const visible = useMemo(() => users.filter((u) => userMatches(u, search)), [users, search]);
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
          label={t('users.search')}
        />
        {toolbar}
        <Button
          variant="contained"
          startIcon={<PersonAddAlt />}
          onClick={onInvite}
          sx={{ ml: { sm: 'auto !important' } }}
        >
          {t('invite.button')}
        </Button>
      </Stack>
      <TableContainer component={Paper} variant="outlined">
        <Table size="small" aria-label={t('users.table')}>
          <TableHead>
            <TableRow>
              <TableCell>{t('columns.name')}</TableCell>
              <TableCell>{t('columns.email')}</TableCell>
              <TableCell>{t(showOrganizations ? 'columns.organizations' : 'columns.groups')}</TableCell>
              <TableCell>{t('columns.status')}</TableCell>
              <TableCell align="right">{t('columns.actions')}</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {visible.length === 0 && (
              <TableRow>
                <TableCell colSpan={5} align="center">
                  {t('noData')}
                </TableCell>
              </TableRow>
            )}
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
                <TableCell align="right">
                  <Tooltip title={t('users.delete')}>
                    <span>
                      <IconButton
                        aria-label={t('users.deleteNamed', { name: u.email })}
                        disabled={u.id === me}
                        onClick={() => setDeleting(u)}
                      >
                        <DeleteOutline fontSize="small" />
                      </IconButton>
                    </span>
                  </Tooltip>
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
        <PagedTableFooter {...paged.footer} />
      </TableContainer>
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
