import { useState } from 'react';
import { Loaded } from '../common/Loaded';
import { GroupsTable } from '../groups/GroupsTable';
import { SUPER_REFRESH_MS, useGroups, useOrganizations, useUsernames } from '../queries';
import { OrganizationFilter } from './OrganizationFilter';
import { uniquePeople } from './organizations';

/**
 * Super Settings › Groups (spec 3 §2.5): every organization's groups with an organization
 * column and filter (All or one). Create Group needs one organization chosen: the new group
 * goes to it. Refreshes every 30 seconds.
 */
export default function GroupsTab() {
  const groups = useGroups('', SUPER_REFRESH_MS);
  const organizations = useOrganizations(SUPER_REFRESH_MS);
  const people = useUsernames();
  const [organization, setOrganization] = useState('');
  return (
    <Loaded queries={[groups, organizations, people]}>
      {() => (
        <GroupsTable
          groups={groups.data!.filter((g) => !organization || g.organization === organization)}
          organizations={organizations.data!}
          organization={organization || null}
          people={
            organization
              ? people.data!.filter((p) => p.organization === organization)
              : uniquePeople(people.data!)
          }
          showOrganization
          toolbar={
            <OrganizationFilter
              organizations={organizations.data!}
              value={organization}
              onChange={setOrganization}
            />
          }
        />
      )}
    </Loaded>
  );
}
