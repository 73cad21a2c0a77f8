import DeleteOutline from '@mui/icons-material/DeleteOutlined';
import EditOutlined from '@mui/icons-material/EditOutlined';
import { Button, Checkbox, Stack, TableCell, TableRow, Typography } from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatDateTime } from '../../../lib/datetime';
import { usePaging } from '../../../components/PagedTableFooter';
import { ActionsCell, PagedTable, RowAction } from '../../../components/PagedTable';
import { PAGE_SIZES } from '../common/table';
import type { GroupTable, GroupTableUser } from '../types';
import { quotaText } from './members';

/**
 * One group's members (spec 3 §2.4): checkbox, Name, Email, UID, Quota, Last Sandbox Created,
 * and the row actions edit quota and remove from the group. The checked rows can be removed
 * together.
 */
export function GroupMembersTable({
  group,
  members,
  onEditQuota,
  onRemove,
}: {
  group: GroupTable;
  members: readonly GroupTableUser[];
  onEditQuota: (member: GroupTableUser) => void;
  onRemove: (members: GroupTableUser[]) => void;
}) {
  const { t } = useTranslation('settings');
  const paging = usePaging(PAGE_SIZES);
  const [checked, setChecked] = useState<ReadonlySet<string>>(new Set());
  const units = { cores: t('units.cores'), gb: t('units.gb') };
  const selected = members.filter((m) => checked.has(m.id));
  const toggle = (id: string) =>
    setChecked((now) => {
      const next = new Set(now);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  const paged = paging.of(members);

  return (
    <Stack spacing={1} component="section" aria-label={t('members.groupTable', { group: group.name })}>
      <Stack direction="row" spacing={2} sx={{ alignItems: 'center', minHeight: 36 }}>
        <Typography variant="h6" component="h2">
          {group.name}
        </Typography>
        {selected.length > 0 && (
          <Button
            color="error"
            startIcon={<DeleteOutline />}
            onClick={() => onRemove(selected)}
            sx={{ ml: 'auto !important' }}
          >
            {t('members.removeSelected', { count: selected.length })}
          </Button>
        )}
      </Stack>
      <PagedTable
        label={t('members.groupTable', { group: group.name })}
        head={
          <>
            <TableCell padding="checkbox">
              <Checkbox
                size="small"
                checked={members.length > 0 && selected.length === members.length}
                indeterminate={selected.length > 0 && selected.length < members.length}
                disabled={members.length === 0}
                onChange={(e) => setChecked(new Set(e.target.checked ? members.map((m) => m.id) : []))}
                slotProps={{ input: { 'aria-label': t('members.selectAll', { group: group.name }) } }}
              />
            </TableCell>
            <TableCell>{t('columns.name')}</TableCell>
            <TableCell>{t('columns.email')}</TableCell>
            <TableCell>{t('columns.uid')}</TableCell>
            <TableCell>{t('columns.quota')}</TableCell>
            <TableCell>{t('columns.lastSandbox')}</TableCell>
            <TableCell align="right">{t('columns.actions')}</TableCell>
          </>
        }
        columns={7}
        empty={t('noData')}
        footer={paged.footer}
      >
        {paged.rows.map((m) => (
          <TableRow key={m.uuid} hover selected={checked.has(m.id)}>
            <TableCell padding="checkbox">
              <Checkbox
                size="small"
                checked={checked.has(m.id)}
                onChange={() => toggle(m.id)}
                slotProps={{ input: { 'aria-label': t('members.select', { name: m.email }) } }}
              />
            </TableCell>
            <TableCell>{m.name}</TableCell>
            <TableCell>{m.email}</TableCell>
            <TableCell>{m.uid ?? ''}</TableCell>
            <TableCell sx={{ whiteSpace: 'nowrap' }}>{quotaText(m.quota, units)}</TableCell>
            <TableCell>
              {m.last_sandbox_created ? formatDateTime(m.last_sandbox_created) : t('members.never')}
            </TableCell>
            <ActionsCell>
              <RowAction
                title={t('members.editQuota')}
                label={t('members.editQuotaNamed', { name: m.email })}
                icon={<EditOutlined fontSize="small" />}
                onClick={() => onEditQuota(m)}
              />
              <RowAction
                title={t('members.remove')}
                label={t('members.removeNamed', { name: m.email })}
                icon={<DeleteOutline fontSize="small" />}
                onClick={() => onRemove([m])}
              />
            </ActionsCell>
          </TableRow>
        ))}
      </PagedTable>
    </Stack>
  );
}
