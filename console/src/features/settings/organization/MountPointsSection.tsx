import { Alert } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { useOrganization } from '../../../api/queries';
import { MountPointsForm } from '../clusters/MountPointsForm';
import { Loaded } from '../common/Loaded';
import { useCurrentOrganizationId } from './useCurrentOrganization';

/** Organization Settings › Mount Points (spec 3 §2.3) of the current organization. */
export default function MountPointsSection() {
  const { t } = useTranslation('settings');
  const organizationId = useCurrentOrganizationId();
  const organization = useOrganization(Boolean(organizationId));
  if (!organizationId) return <Alert severity="info">{t('noCurrentOrganization')}</Alert>;
  return (
    <Loaded queries={[organization]}>
      {() =>
        organization.data ? (
          <MountPointsForm
            key={organization.data.id}
            organization={organization.data.id}
            saved={organization.data}
          />
        ) : (
          <Alert severity="info">{t('noCurrentOrganization')}</Alert>
        )
      }
    </Loaded>
  );
}
