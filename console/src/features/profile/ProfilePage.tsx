import {
  Alert,
  Box,
  CircularProgress,
  List,
  ListItemButton,
  ListItemText,
  Paper,
  Tab,
  Tabs,
  Typography,
  useMediaQuery,
} from '@mui/material';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { useMe } from '../../api/queries';
import { MOBILE_QUERY } from '../../app/theme';
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
  const mobile = useMediaQuery(MOBILE_QUERY);
  const title = (
    <Typography variant="h6" component="h1" sx={{ px: mobile ? 0 : 2, pt: mobile ? 0 : 2, pb: 1 }}>
      {t('usersSettings')}
    </Typography>
  );
  if (mobile)
    return (
      <Box sx={{ p: 1.5 }}>
        {title}
        <Tabs
          value={tab}
          onChange={(_e, value: ProfileTab) => onSelect(value)}
          variant="fullWidth"
          sx={{ mb: 2, borderBottom: 1, borderColor: 'divider' }}
        >
          {PROFILE_TABS.map((name) => (
            <Tab key={name} value={name} label={t(`tabs.${name}`)} />
          ))}
        </Tabs>
        {children}
      </Box>
    );
  return (
    <Box sx={{ p: 3, display: 'flex', gap: 3, alignItems: 'flex-start', maxWidth: 1100, mx: 'auto' }}>
      <Paper
        variant="outlined"
        component="nav"
        sx={{ width: 240, flexShrink: 0 }}
        aria-label={t('usersSettings')}
      >
        {title}
        <List sx={{ pt: 0 }}>
          {PROFILE_TABS.map((name) => (
            <ListItemButton
              key={name}
              selected={tab === name}
              onClick={() => onSelect(name)}
              aria-current={tab === name ? 'page' : undefined}
            >
              <ListItemText primary={t(`tabs.${name}`)} />
            </ListItemButton>
          ))}
        </List>
      </Paper>
      <Box sx={{ flex: 1, minWidth: 0 }} component="section" aria-label={t(`tabs.${tab}`)}>
        {children}
      </Box>
    </Box>
  );
}
