import { useTranslation } from 'react-i18next';
import { SettingsScreen } from '../SettingsScreen';
import { USERS_SECTIONS } from './sections';

/** /settings/users (spec 3 §2.4): super admin, organization admin and group admin. */
export default function UsersSettingsPage() {
  const { t } = useTranslation('settings');
  return (
    <SettingsScreen
      title={t('users.title')}
      roles={['admin', 'organization_admin', 'group_admin']}
      param="section"
      labels="users.sections"
      sections={USERS_SECTIONS}
    />
  );
}
