import { useTranslation } from 'react-i18next';
import { SettingsScreen } from '../SettingsScreen';
import { SUPER_TABS } from './tabs';

/** /settings/admin (spec 3 §2.5): the super admin only. */
export default function SuperSettingsPage() {
  const { t } = useTranslation('settings');
  return (
    <SettingsScreen
      title={t('super.title')}
      roles={['admin']}
      param="tab"
      labels="super.tabs"
      sections={SUPER_TABS}
    />
  );
}
