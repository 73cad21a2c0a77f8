import AddIcon from '@mui/icons-material/Add';
import DeleteOutline from '@mui/icons-material/DeleteOutlined';
import EditOutlined from '@mui/icons-material/EditOutlined';
import {
  Button,
  Checkbox,
  FormControlLabel,
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
import { useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { SearchField } from '../common/SearchField';
import { formatDateTime } from '../../../lib/datetime';
import { toasts } from '../../toasts/toast-store';
import { toastFailure, toastSuccess } from '../../toasts/outcome';
import { ConfirmDialog } from '../common/ConfirmDialog';
import { Loaded } from '../common/Loaded';
import { PagedTableFooter, usePaging } from '../../../components/PagedTableFooter';
import { PAGE_SIZES } from '../common/table';
import {
  SUPER_REFRESH_MS,
  useCapacity,
  useDeleteOrganization,
  useOrganizations,
  useUsernames,
} from '../queries';
import type { OrganizationItem } from '../types';
import { OrganizationDialog } from './OrganizationDialog';
import { adminsText, organizationMatches, organizationQuotaText, uniquePeople } from './organizations';

/**
 * Super Settings › Organizations (spec 3 §2.5): Name, Organization Admins (the first and a
 * count of the rest), Quota, Creation Date and Actions; a search box, Create new, the Create
 * and Edit Organization modals and a delete confirmation whose 'Remove all users' sends purge.
 * Refreshes every 30 seconds; a failed load shows the toast titled 'fail'.
 */
export default function OrganizationsTab() {
  const { t } = useTranslation('settings');
  const organizations = useOrganizations(SUPER_REFRESH_MS);
  const capacity = useCapacity();
  const usernames = useUsernames();
  const remove = useDeleteOrganization();
  const [search, setSearch] = useState('');
  const paging = usePaging(PAGE_SIZES);
  const [dialog, setDialog] = useState<{ organization?: OrganizationItem } | null>(null);
  const [deleting, setDeleting] = useState<OrganizationItem | null>(null);
  const [purge, setPurge] = useState(false);
  const people = useMemo(() => uniquePeople(usernames.data ?? []), [usernames.data]);
  const emails = useMemo(() => new Map(people.map((p) => [p.id, p.email])), [people]);
  const visible = useMemo(
    () => (organizations.data ?? []).filter((o) => organizationMatches(o, search, emails)),
    [organizations.data, search, emails],
  );
  const failedAt = useRef(0);
  useEffect(() => {
    if (organizations.errorUpdatedAt && organizations.errorUpdatedAt !== failedAt.current) {
      failedAt.current = organizations.errorUpdatedAt;
      toasts.show({
        title: t('organizations.fail'),
        text: organizations.error?.message ?? '',
        type: 'danger',
      });
    }
  }, [organizations.errorUpdatedAt, organizations.error, t]);
  const units = { cores: t('units.cores'), gb: t('units.gb') };
  const paged = paging.of(visible);

  return (
    <Loaded queries={[organizations, capacity, usernames]}>
      {() => (
        <Stack spacing={2}>
          <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ alignItems: { sm: 'center' } }}>
            <SearchField
              value={search}
              onChange={(value) => {
                setSearch(value);
                paging.reset();
              }}
              label={t('organizations.search')}
            />
            <Button
              variant="contained"
              startIcon={<AddIcon />}
              onClick={() => setDialog({})}
              sx={{ ml: { sm: 'auto !important' } }}
            >
              {t('organizations.createNew')}
            </Button>
          </Stack>
          <TableContainer component={Paper} variant="outlined">
            <Table size="small" aria-label={t('organizations.table')}>
              <TableHead>
                <TableRow>
                  <TableCell>{t('columns.name')}</TableCell>
                  <TableCell>{t('organizations.columns.admins')}</TableCell>
                  <TableCell>{t('columns.quota')}</TableCell>
                  <TableCell>{t('organizations.columns.creationDate')}</TableCell>
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
                {paged.rows.map((o) => (
                  <TableRow key={o.id} hover>
                    <TableCell>{o.name}</TableCell>
                    <TableCell>
                      {adminsText(o.admins, emails, (count) => t('organizations.more', { count }))}
                    </TableCell>
                    <TableCell sx={{ whiteSpace: 'nowrap' }}>
                      {organizationQuotaText(o.quota, units)}
                    </TableCell>
                    <TableCell>{formatDateTime(o.creation_date)}</TableCell>
                    <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                      <Tooltip title={t('organizations.edit')}>
                        <IconButton
                          aria-label={t('organizations.editNamed', { name: o.name })}
                          onClick={() => setDialog({ organization: o })}
                        >
                          <EditOutlined fontSize="small" />
                        </IconButton>
                      </Tooltip>
                      <Tooltip title={t('organizations.delete')}>
                        <IconButton
                          aria-label={t('organizations.deleteNamed', { name: o.name })}
                          onClick={() => {
                            setPurge(false);
                            setDeleting(o);
                          }}
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
          {dialog && (
            <OrganizationDialog
              organization={dialog.organization}
              capacity={capacity.data!}
              people={people}
              onClose={() => setDialog(null)}
            />
          )}
          <ConfirmDialog
            open={Boolean(deleting)}
            title={t('organizations.deleteTitle')}
            text={t('organizations.deleteText', { name: deleting?.name ?? '' })}
            busy={remove.isPending}
            onClose={() => setDeleting(null)}
            onConfirm={() =>
              remove.mutate(
                { organization: deleting!.id, purge },
                {
                  onSuccess: () => {
                    toastSuccess(t('organizations.deleted', { name: deleting!.name }));
                    setDeleting(null);
                  },
                  onError: (e) => toastFailure(e),
                },
              )
            }
          >
            <FormControlLabel
              control={<Checkbox checked={purge} onChange={(e) => setPurge(e.target.checked)} />}
              label={t('organizations.removeAllUsers')}
            />
          </ConfirmDialog>
        </Stack>
      )}
    </Loaded>
  );
}
