import { Alert, Box, CircularProgress } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { useMe } from '../../api/queries';
import { SettingsLayout } from '../settings/SettingsLayout';
import { PreferencesSection } from './PreferencesSection';
import { ProfileSection } from './ProfileSection';
import { SecuritySection } from './SecuritySection';

export const PROFILE_TABS = ['profile', 'security', 'preferences'] as const;
export type ProfileTab = (typeof PROFILE_TABS)[number];

/** /profile (spec 1 §2.6): sidebar 'Users Settings' with Profile, Security, Preferences (?tab=). */
export default function ProfilePage() {
  const { t } = useTranslation('profile');
  const me = useMe();
  const [params, setParams] = useSearchParams();
  const tab: ProfileTab = (PROFILE_TABS as readonly string[]).includes(params.get('tab') ?? '')
    ? (params.get('tab') as ProfileTab)
    : 'profile';
  const select = (next: ProfileTab) => setParams(next === 'profile' ? {} : { tab: next }, { replace: true });

  return (
    <ProfileLayout tab={tab} onSelect={select}>
      {me.isPending ? (
        <Box sx={{ display: 'flex', justifyContent: 'center', py: 6 }}>
          <CircularProgress aria-label={t('loading', { ns: 'common' })} />
        </Box>
      ) : me.isError || !me.data ? (
        <Alert severity="error">{me.error?.message || t('somethingWentWrong', { ns: 'common' })}</Alert>
      ) : tab === 'profile' ? (
        <ProfileSection me={me.data} />
      ) : tab === 'security' ? (
        <SecuritySection />
      ) : (
        <PreferencesSection />
      )}
    </ProfileLayout>
  );
}

/** The sidebar (tabs on top at ≤ 574 px) beside the chosen tab's content. */
export function ProfileLayout({
  tab,
  onSelect,
  children,
}: {
  tab: ProfileTab;
  onSelect: (tab: ProfileTab) => void;
  children: React.ReactNode;
}) {
  const { t } = useTranslation('profile');
  return (
    <SettingsLayout
      title={t('usersSettings')}
      sections={PROFILE_TABS.map((name) => ({ id: name, label: t(`tabs.${name}`) }))}
      selected={tab}
      onSelect={(id) => onSelect(id as ProfileTab)}
      maxWidth={1100}
      tabs="fullWidth"
    >
      {children}
    </SettingsLayout>
  );
}
