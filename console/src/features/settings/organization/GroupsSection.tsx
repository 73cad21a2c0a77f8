import { Alert } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { Loaded } from '../common/Loaded';
import { GroupsTable } from '../groups/GroupsTable';
import { useGroups, useOrganizations, useUsernames } from '../queries';
import { useCurrentOrganizationId } from './useCurrentOrganization';

/** Organization Settings › Groups: the current organization's groups. */
export default function GroupsSection() {
  const { t } = useTranslation('settings');
  const organization = useCurrentOrganizationId();
  const groups = useGroups(organization ?? '');
  const organizations = useOrganizations();
  const people = useUsernames();
  if (!organization) return <Alert severity="info">{t('noCurrentOrganization')}</Alert>;
  return (
    <Loaded queries={[groups, organizations, people]}>
      {() => (
        <GroupsTable
          groups={groups.data!.filter((g) => g.organization === organization)}
          organizations={organizations.data!}
          organization={organization}
          people={people.data!.filter((p) => p.organization === organization)}
        />
      )}
    </Loaded>
  );
}
