import { Alert } from '@mui/material';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useOrganization } from '../../../api/queries';
import type { CurrentOrganization } from '../clusters/queries';
import { Loaded } from '../common/Loaded';
import { useCurrentOrganizationId } from './useCurrentOrganization';

/**
 * A section of the caller's current organization (spec 3 §2.3): the organization once loaded,
 * a note when there is none.
 */
export function CurrentOrganizationSection({
  children,
}: {
  children: (organization: CurrentOrganization) => ReactNode;
}) {
  const { t } = useTranslation('settings');
  const organizationId = useCurrentOrganizationId();
  const organization = useOrganization(Boolean(organizationId));
  const none = <Alert severity="info">{t('noCurrentOrganization')}</Alert>;
  if (!organizationId) return none;
  return (
    <Loaded queries={[organization]}>{() => (organization.data ? children(organization.data) : none)}</Loaded>
  );
}
