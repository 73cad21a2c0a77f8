import { useState } from 'react';
import { useMe } from '../../../api/queries';
import { Loaded } from '../common/Loaded';
import { SUPER_REFRESH_MS, useAllUsers, useGroups, useOrganizations } from '../queries';
import { InviteDialog } from '../users/InviteDialog';
import { UsersTable } from '../users/UsersTable';
import { OrganizationFilter } from './OrganizationFilter';

/**
 * Super Settings › Users (spec 3 §2.5): every account with its organizations, an organization
 * filter ('All' or one), invitations to any organization and account deletion. Refreshes
 * every 30 seconds.
 */
export default function UsersTab() {
  const me = useMe();
  const users = useAllUsers(SUPER_REFRESH_MS);
  const organizations = useOrganizations(SUPER_REFRESH_MS);
  const groups = useGroups('', SUPER_REFRESH_MS);
  const [organization, setOrganization] = useState('');
  const [inviting, setInviting] = useState(false);
  return (
    <Loaded queries={[users, organizations, groups]}>
      {() => (
        <>
          <UsersTable
            users={users.data!.filter(
              (u) => !organization || u.organizations.some((o) => o.id === organization),
            )}
            me={me.data?.id ?? ''}
            showOrganizations
            toolbar={
              <OrganizationFilter
                organizations={organizations.data!}
                value={organization}
                onChange={setOrganization}
              />
            }
            onInvite={() => setInviting(true)}
          />
          {inviting && (
            <InviteDialog
              open
              organization={organization || me.data?.current_organization || null}
              organizations={organizations.data!}
              groups={groups.data!}
              onClose={() => setInviting(false)}
            />
          )}
        </>
      )}
    </Loaded>
  );
}
