import { Alert } from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMe } from '../../../api/queries';
import { Loaded } from '../common/Loaded';
import { useGroups, useOrganizations, useOrganizationUsers } from '../queries';
import { InviteDialog } from '../users/InviteDialog';
import { UsersTable } from '../users/UsersTable';
import { useCurrentOrganizationId } from './useCurrentOrganization';

/** Organization Settings › Users: the current organization's members; delete takes them out of it. */
export default function UsersSection() {
  const { t } = useTranslation('settings');
  const me = useMe();
  const organization = useCurrentOrganizationId();
  const users = useOrganizationUsers();
  const groups = useGroups(organization ?? '');
  // Only the super admin chooses the organization of an invitation (spec 3 §6).
  const superAdmin = me.data?.role === 'admin';
  const organizations = useOrganizations();
  const [inviting, setInviting] = useState(false);
  if (!organization) return <Alert severity="info">{t('noCurrentOrganization')}</Alert>;
  return (
    <Loaded queries={[users, groups, organizations]}>
      {() => (
        <>
          <UsersTable
            users={users.data!}
            organization={organization}
            me={me.data?.id ?? ''}
            onInvite={() => setInviting(true)}
          />
          {inviting && (
            <InviteDialog
              open
              organization={organization}
              organizations={superAdmin ? organizations.data : undefined}
              groups={groups.data!}
              onClose={() => setInviting(false)}
            />
          )}
        </>
      )}
    </Loaded>
  );
}
