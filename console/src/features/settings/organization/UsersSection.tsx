import { Alert } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { Loaded } from '../common/Loaded';
import { useOrganizationUsers } from '../queries';
import { useInvitation } from '../users/useInvitation';
import { UsersTable } from '../users/UsersTable';
import { useCurrentOrganizationId } from './useCurrentOrganization';

/** Organization Settings › Users: the current organization's members; delete takes them out of it. */
export default function UsersSection() {
  const { t } = useTranslation('settings');
  const organization = useCurrentOrganizationId();
  const users = useOrganizationUsers();
  const invitation = useInvitation(organization, { everyGroup: false });
  if (!organization) return <Alert severity="info">{t('noCurrentOrganization')}</Alert>;
  return (
    <Loaded queries={[users, ...invitation.queries]}>
      {() => (
        <>
          <UsersTable
            users={users.data!}
            organization={organization}
            me={invitation.me.data?.id ?? ''}
            onInvite={invitation.open}
          />
          {invitation.dialog()}
        </>
      )}
    </Loaded>
  );
}
