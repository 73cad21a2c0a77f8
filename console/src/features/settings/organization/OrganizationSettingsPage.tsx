import { useTranslation } from 'react-i18next';
import { SettingsScreen } from '../SettingsScreen';
import { ORGANIZATION_SECTIONS } from './sections';

/** /settings/organization (spec 3 §2.3): super admin and organization admin. */
export default function OrganizationSettingsPage() {
  const { t } = useTranslation('settings');
  return (
    <SettingsScreen
      title={t('organization.title')}
      roles={['admin', 'organization_admin']}
      param="section"
      labels="organization.sections"
      sections={ORGANIZATION_SECTIONS}
    />
  );
}
