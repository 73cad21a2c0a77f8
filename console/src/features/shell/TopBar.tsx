import FeedbackOutlined from '@mui/icons-material/FeedbackOutlined';
import MenuIcon from '@mui/icons-material/Menu';
import { AppBar, Box, Button, IconButton, Toolbar, Tooltip, useMediaQuery } from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useLocation, useNavigate } from 'react-router';
import { useAvatar, useFeedback, useLogout, useMe, useSwitchOrganization } from '../../api/queries';
import type { Me } from '../../api/answers';
import { MOBILE_QUERY } from '../../app/theme';
import { toastFailure, toastSuccess } from '../toasts/outcome';
import { toasts } from '../toasts/toast-store';
import { AccountMenu, type Person } from './AccountMenu';
import { FeedbackDialog } from './FeedbackDialog';
import { HomeLink } from './HomeLink';
import { MobileNav } from './MobileNav';
import { useMobileNav } from './mobile-nav';
import { NotificationBell } from './NotificationBell';
import { OrganizationSwitcher } from './OrganizationSwitcher';
import { RealtimeDot } from './RealtimeDot';
import { useRealtime } from './realtime/RealtimeProvider';
import { activeSection, SECTIONS } from './sections';
import { settingsEntries } from './settings-entries';
import { SettingsMenu } from './SettingsMenu';

export const initialsOf = (me: Pick<Me, 'first_name' | 'last_name' | 'email'>) =>
  (`${me.first_name.trim().charAt(0)}${me.last_name.trim().charAt(0)}` || me.email.charAt(0)).toUpperCase();

/** The top bar of the signed-in person (spec 1 §2.2); the mobile layout moves most of it into a drawer. */
export function TopBar() {
  const { t } = useTranslation('shell');
  const me = useMe().data;
  const mobile = useMediaQuery(MOBILE_QUERY, { noSsr: true });
  const compact = useMediaQuery('(max-width:899px)', { noSsr: true });
  const { pathname } = useLocation();
  const navigate = useNavigate();
  const realtime = useRealtime();
  const avatar = useAvatar(me?.id, me?.has_avatar);
  const logout = useLogout();
  const switchOrganization = useSwitchOrganization();
  const feedback = useFeedback();
  const { open: drawerOpen, setOpen: setDrawerOpen } = useMobileNav();
  const [feedbackOpen, setFeedbackOpen] = useState(false);

  if (!me) return null; // the route guard renders the shell for signed-in people only
  const person: Person = {
    fullName: `${me.first_name} ${me.last_name}`.trim() || me.email,
    initials: initialsOf(me),
    roleLabel: me.role ? t(`roles.${me.role}`) : '',
    email: me.email,
    avatarUrl: avatar.data ?? null,
  };
  const settings = settingsEntries(me.role);
  const active = activeSection(pathname);
  const organizations = me.organizations.map(({ id, name }) => ({ id, name }));

  const onSwitch = (name: string) =>
    void switchOrganization.mutateAsync(name).then(
      // New tokens carry the new organization: start the console over from / (spec 1 §7.1).
      () => window.location.assign('/'),
      () =>
        toasts.show({
          type: 'danger',
          title: t('common:requestFailed'),
          text: t('organization.switchFailed', { name }),
        }),
    );
  const onLogout = () =>
    void logout
      .mutateAsync()
      .catch(() => undefined)
      .then(() => navigate('/login', { replace: true }));
  const onSendFeedback = (body: { subject: string; content: string }, done: () => void) =>
    feedback.mutate(body, {
      onSuccess: () => {
        done();
        setFeedbackOpen(false);
        toastSuccess(t('feedback.sent'));
      },
      onError: (error) => toastFailure(error),
    });

  const dot = <RealtimeDot status={realtime.status} onReconnect={realtime.reconnect} />;
  return (
    <>
      <AppBar
        position="sticky"
        elevation={0}
        color="inherit"
        sx={{ bgcolor: 'background.paper', borderBottom: 1, borderColor: 'divider', backgroundImage: 'none' }}
      >
        <Toolbar sx={{ gap: { xs: 0.5, sm: 1 }, minHeight: { xs: 56, sm: 64 }, px: { xs: 1, sm: 2 } }}>
          {mobile ? (
            <>
              <IconButton
                aria-label={t('mobile.open')}
                aria-expanded={drawerOpen ? 'true' : 'false'}
                onClick={() => setDrawerOpen(true)}
                color="inherit"
              >
                <MenuIcon />
              </IconButton>
              <HomeLink label={t('home')} />
              <Box sx={{ flex: 1 }} />
              {dot}
              <NotificationBell />
            </>
          ) : (
            <>
              <HomeLink label={t('home')} showName={!compact} />
              <Box
                sx={{ ml: { sm: 0.5, md: 2 }, minWidth: 56, maxWidth: 260, flexShrink: 1, display: 'flex' }}
              >
                <OrganizationSwitcher
                  organizations={organizations}
                  currentId={me.current_organization}
                  onSwitch={onSwitch}
                  switching={switchOrganization.isPending}
                  compact={compact}
                />
              </Box>
              <Box
                component="nav"
                aria-label={t('sections.heading')}
                sx={{ display: 'flex', gap: { sm: 0, md: 0.5 }, ml: { sm: 0, md: 2 }, flexShrink: 0 }}
              >
                {SECTIONS.map((section) => {
                  const isActive = active === section.key;
                  return (
                    <Button
                      key={section.key}
                      component={RouterLink}
                      to={section.to}
                      aria-current={isActive ? 'page' : undefined}
                      color={isActive ? 'primary' : 'inherit'}
                      sx={{
                        textTransform: 'none',
                        fontWeight: isActive ? 700 : 500,
                        px: { sm: 1, md: 1.5 },
                        minWidth: 0,
                        borderRadius: 1,
                        position: 'relative',
                        opacity: isActive ? 1 : 0.85,
                        '&::after': {
                          content: '""',
                          position: 'absolute',
                          left: { sm: 8, md: 12 },
                          right: { sm: 8, md: 12 },
                          bottom: 2,
                          height: 2,
                          borderRadius: 1,
                          bgcolor: isActive ? 'primary.main' : 'transparent',
                        },
                      }}
                    >
                      {t(`sections.${section.key}`)}
                    </Button>
                  );
                })}
              </Box>
              <Box sx={{ flex: 1 }} />
              {dot}
              {!compact && (
                <Tooltip title={t('feedback.open')}>
                  <IconButton
                    aria-label={t('feedback.open')}
                    onClick={() => setFeedbackOpen(true)}
                    color="inherit"
                  >
                    <FeedbackOutlined />
                  </IconButton>
                </Tooltip>
              )}
              <NotificationBell />
              <SettingsMenu entries={settings} />
              <AccountMenu
                person={person}
                onLogout={onLogout}
                // Narrow bars have no room for the feedback button: it moves into this menu.
                onFeedback={compact ? () => setFeedbackOpen(true) : undefined}
              />
            </>
          )}
        </Toolbar>
      </AppBar>
      {mobile && (
        <MobileNav
          open={drawerOpen}
          onClose={() => setDrawerOpen(false)}
          person={person}
          active={active}
          settings={settings}
          organizations={organizations}
          currentOrganizationId={me.current_organization}
          onSwitchOrganization={onSwitch}
          switching={switchOrganization.isPending}
          onFeedback={() => setFeedbackOpen(true)}
          onLogout={onLogout}
        />
      )}
      <FeedbackDialog
        open={feedbackOpen}
        sending={feedback.isPending}
        onClose={() => setFeedbackOpen(false)}
        onSend={onSendFeedback}
      />
    </>
  );
}
