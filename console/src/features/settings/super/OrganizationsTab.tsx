import AddIcon from '@mui/icons-material/Add';
import DeleteOutline from '@mui/icons-material/DeleteOutlined';
import EditOutlined from '@mui/icons-material/EditOutlined';
import { Checkbox, FormControlLabel, Stack, TableCell, TableRow } from '@mui/material';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatDateTime } from '../../../lib/datetime';
import { toasts } from '../../toasts/toast-store';
import { toastFailure, toastSuccess } from '../../toasts/outcome';
import { ConfirmDialog } from '../common/ConfirmDialog';
import { Loaded } from '../common/Loaded';
import { TableToolbar } from '../common/TableToolbar';
import { usePaging } from '../../../components/PagedTableFooter';
import { ActionsCell, PagedTable, RowAction } from '../../../components/PagedTable';
import { PAGE_SIZES, useSearch } from '../common/table';
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
  const paging = usePaging(PAGE_SIZES);
  const search = useSearch(paging);
  const [dialog, setDialog] = useState<{ organization?: OrganizationItem } | null>(null);
  const [deleting, setDeleting] = useState<OrganizationItem | null>(null);
  const [purge, setPurge] = useState(false);
  const people = useMemo(() => uniquePeople(usernames.data ?? []), [usernames.data]);
  const emails = useMemo(() => new Map(people.map((p) => [p.id, p.email])), [people]);
  const visible = useMemo(
    () => (organizations.data ?? []).filter((o) => organizationMatches(o, search.text, emails)),
    [organizations.data, search.text, emails],
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
          <TableToolbar
            search={search}
            searchLabel={t('organizations.search')}
            action={{ label: t('organizations.createNew'), icon: <AddIcon />, onClick: () => setDialog({}) }}
          />
          <PagedTable
            label={t('organizations.table')}
            head={
              <>
                <TableCell>{t('columns.name')}</TableCell>
                <TableCell>{t('organizations.columns.admins')}</TableCell>
                <TableCell>{t('columns.quota')}</TableCell>
                <TableCell>{t('organizations.columns.creationDate')}</TableCell>
                <TableCell align="right">{t('columns.actions')}</TableCell>
              </>
            }
            columns={5}
            empty={t('noData')}
            footer={paged.footer}
          >
            {paged.rows.map((o) => (
              <TableRow key={o.id} hover>
                <TableCell>{o.name}</TableCell>
                <TableCell>
                  {adminsText(o.admins, emails, (count) => t('organizations.more', { count }))}
                </TableCell>
                <TableCell sx={{ whiteSpace: 'nowrap' }}>{organizationQuotaText(o.quota, units)}</TableCell>
                <TableCell>{formatDateTime(o.creation_date)}</TableCell>
                <ActionsCell>
                  <RowAction
                    title={t('organizations.edit')}
                    label={t('organizations.editNamed', { name: o.name })}
                    icon={<EditOutlined fontSize="small" />}
                    onClick={() => setDialog({ organization: o })}
                  />
                  <RowAction
                    title={t('organizations.delete')}
                    label={t('organizations.deleteNamed', { name: o.name })}
                    icon={<DeleteOutline fontSize="small" />}
                    onClick={() => {
                      setPurge(false);
                      setDeleting(o);
                    }}
                  />
                </ActionsCell>
              </TableRow>
            ))}
          </PagedTable>
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
