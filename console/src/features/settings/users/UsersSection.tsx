import PersonAddAlt from '@mui/icons-material/PersonAddAlt';
import { Alert, Button, Stack } from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { SearchField } from '../common/SearchField';
import { toastFailure, toastSuccess } from '../../toasts/outcome';
import { ConfirmDialog } from '../common/ConfirmDialog';
import { Loaded } from '../common/Loaded';
import { useCurrentOrganizationId } from '../organization/useCurrentOrganization';
import { useGroupTables, useRemoveFromGroup } from '../queries';
import type { GroupTable, GroupTableUser } from '../types';
import { GroupMembersTable } from './GroupMembersTable';
import { visibleMembers } from './members';
import { QuotaDialog } from './QuotaDialog';
import { useInvitation } from './useInvitation';

/**
 * Users Settings › Users (spec 3 §2.4): one table per group of the current organization (a
 * group admin: their groups), a search box and Add User. Add User invites people to the
 * organization and a group; the API lets only the super and organization admins invite, so
 * a group admin does not see it.
 */
export default function UsersSection() {
  const { t } = useTranslation('settings');
  const organization = useCurrentOrganizationId();
  const tables = useGroupTables();
  const invitation = useInvitation(organization, { everyGroup: true });
  const role = invitation.me.data?.role;
  const canInvite = role === 'admin' || role === 'organization_admin';
  const remove = useRemoveFromGroup();
  const [search, setSearch] = useState('');
  const [editing, setEditing] = useState<{ group: GroupTable; member: GroupTableUser } | null>(null);
  const [removing, setRemoving] = useState<{ group: GroupTable; members: GroupTableUser[] } | null>(null);
  if (!organization) return <Alert severity="info">{t('noCurrentOrganization')}</Alert>;

  const confirmRemove = async () => {
    const { group, members } = removing!;
    try {
      for (const m of members) await remove.mutateAsync({ user: m.id, group: group.id });
      toastSuccess(t('members.removed', { count: members.length, group: group.name }));
      setRemoving(null);
    } catch (e) {
      toastFailure(e);
    }
  };

  return (
    <Loaded queries={[tables, ...invitation.queries]}>
      {() => {
        // A group being edited is read from the fresh list, so the maxima follow refreshes.
        const editedGroup = editing && tables.data!.find((g) => g.id === editing.group.id);
        return (
          <Stack spacing={3}>
            <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ alignItems: { sm: 'center' } }}>
              <SearchField value={search} onChange={setSearch} label={t('users.search')} />
              {canInvite && (
                <Button
                  variant="contained"
                  startIcon={<PersonAddAlt />}
                  onClick={invitation.open}
                  sx={{ ml: { sm: 'auto !important' } }}
                >
                  {t('members.add')}
                </Button>
              )}
            </Stack>
            {tables.data!.length === 0 && <Alert severity="info">{t('members.noGroups')}</Alert>}
            {tables.data!.map((group) => (
              <GroupMembersTable
                key={group.id}
                group={group}
                members={visibleMembers(group, search)}
                onEditQuota={(member) => setEditing({ group, member })}
                onRemove={(members) => setRemoving({ group, members })}
              />
            ))}
            {editing && editedGroup && (
              <QuotaDialog group={editedGroup} member={editing.member} onClose={() => setEditing(null)} />
            )}
            <ConfirmDialog
              open={Boolean(removing)}
              title={t('members.removeTitle')}
              text={
                removing
                  ? t('members.removeText', {
                      count: removing.members.length,
                      name: removing.members[0]!.email,
                      group: removing.group.name,
                    })
                  : ''
              }
              busy={remove.isPending}
              onClose={() => setRemoving(null)}
              onConfirm={() => void confirmRemove()}
            />
            {invitation.dialog()}
          </Stack>
        );
      }}
    </Loaded>
  );
}
