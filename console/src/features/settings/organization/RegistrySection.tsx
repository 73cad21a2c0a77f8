import { Alert } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { useOrganization } from '../../../api/queries';
import { RegistryForm } from '../clusters/RegistryForm';
import { Loaded } from '../common/Loaded';
import { useCurrentOrganizationId } from './useCurrentOrganization';

/** Organization Settings › Organization Registry (spec 3 §2.3) of the current organization. */
export default function RegistrySection() {
  const { t } = useTranslation('settings');
  const organizationId = useCurrentOrganizationId();
  const organization = useOrganization(Boolean(organizationId));
  if (!organizationId) return <Alert severity="info">{t('noCurrentOrganization')}</Alert>;
  return (
    <Loaded queries={[organization]}>
      {() =>
        organization.data ? (
          <RegistryForm
            key={JSON.stringify(organization.data.registry)}
            organization={organization.data.id}
            registry={organization.data.registry}
          />
        ) : (
          <Alert severity="info">{t('noCurrentOrganization')}</Alert>
        )
      }
    </Loaded>
  );
}
