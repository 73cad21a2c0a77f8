import BusinessOutlined from '@mui/icons-material/BusinessOutlined';
import Check from '@mui/icons-material/Check';
import Close from '@mui/icons-material/Close';
import FeedbackOutlined from '@mui/icons-material/FeedbackOutlined';
import Logout from '@mui/icons-material/Logout';
import PersonOutline from '@mui/icons-material/PersonOutlined';
import SettingsOutlined from '@mui/icons-material/SettingsOutlined';
import {
  Box,
  Divider,
  Drawer,
  IconButton,
  List,
  ListItemButton,
  ListItemIcon,
  ListItemText,
  ListSubheader,
} from '@mui/material';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink } from 'react-router';
import { PersonSummary, type Person } from './AccountMenu';
import type { OrganizationChoice } from './OrganizationSwitcher';
import { SECTIONS, type SectionKey } from './sections';
import type { SettingsEntry } from './settings-entries';

export interface MobileNavProps {
  open: boolean;
  onClose: () => void;
  person: Person;
  active: SectionKey | null;
  settings: SettingsEntry[];
  organizations: OrganizationChoice[];
  currentOrganizationId: string | null;
  onSwitchOrganization: (name: string) => void;
  switching: boolean;
  onFeedback: () => void;
  onLogout: () => void;
}

/** The collapsible navigation of the mobile layout: the entries of the desktop bar, stacked. */
export function MobileNav(props: MobileNavProps) {
  const { open, onClose, person, active, settings, organizations, currentOrganizationId } = props;
  const { t } = useTranslation('shell');
  const subheader = (text: string) => (
    <ListSubheader sx={{ bgcolor: 'transparent', lineHeight: '36px' }}>{text}</ListSubheader>
  );
  return (
    <Drawer
      anchor="left"
      open={open}
      onClose={onClose}
      slotProps={{ paper: { sx: { width: 'min(300px, 86vw)', display: 'flex', flexDirection: 'column' } } }}
    >
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, p: 2 }}>
        <Box sx={{ flex: 1, minWidth: 0 }}>
          <PersonSummary person={person} />
        </Box>
        <IconButton aria-label={t('mobile.close')} onClick={onClose} edge="end">
          <Close />
        </IconButton>
      </Box>
      <Divider />
      <Box component="nav" aria-label={t('mobile.title')} sx={{ overflowY: 'auto', flex: 1 }}>
        <List subheader={subheader(t('sections.heading'))} dense>
          {SECTIONS.map((section) => (
            <ListItemButton
              key={section.key}
              component={RouterLink}
              to={section.to}
              selected={active === section.key}
              aria-current={active === section.key ? 'page' : undefined}
              onClick={onClose}
            >
              <ListItemText primary={t(`sections.${section.key}`)} />
            </ListItemButton>
          ))}
        </List>
        {organizations.length > 0 && (
          <List subheader={subheader(t('organization.heading'))} dense>
            {organizations.map((organization) => {
              const isCurrent = organization.id === currentOrganizationId;
              return (
                <ListItemButton
                  key={organization.id}
                  selected={isCurrent}
                  disabled={props.switching}
                  onClick={() => {
                    onClose();
                    if (!isCurrent) props.onSwitchOrganization(organization.name);
                  }}
                >
                  <ListItemIcon sx={{ minWidth: 36 }}>
                    {isCurrent ? <Check fontSize="small" /> : <BusinessOutlined fontSize="small" />}
                  </ListItemIcon>
                  <ListItemText primary={organization.name} />
                </ListItemButton>
              );
            })}
          </List>
        )}
        {settings.length > 0 && (
          <List subheader={subheader(t('settings.button'))} dense>
            {settings.map((entry) => (
              <ListItemButton key={entry.key} component={RouterLink} to={entry.to} onClick={onClose}>
                <ListItemIcon sx={{ minWidth: 36 }}>
                  <SettingsOutlined fontSize="small" />
                </ListItemIcon>
                <ListItemText primary={t(`settings.${entry.key}`)} />
              </ListItemButton>
            ))}
          </List>
        )}
        <Divider />
        <List dense>
          <ListItemButton
            onClick={() => {
              onClose();
              props.onFeedback();
            }}
          >
            <ListItemIcon sx={{ minWidth: 36 }}>
              <FeedbackOutlined fontSize="small" />
            </ListItemIcon>
            <ListItemText primary={t('feedback.open')} />
          </ListItemButton>
          <ListItemButton component={RouterLink} to="/profile" onClick={onClose}>
            <ListItemIcon sx={{ minWidth: 36 }}>
              <PersonOutline fontSize="small" />
            </ListItemIcon>
            <ListItemText primary={t('account.viewProfile')} />
          </ListItemButton>
          <ListItemButton
            onClick={() => {
              onClose();
              props.onLogout();
            }}
          >
            <ListItemIcon sx={{ minWidth: 36 }}>
              <Logout fontSize="small" />
            </ListItemIcon>
            <ListItemText primary={t('account.logout')} />
          </ListItemButton>
        </List>
      </Box>
    </Drawer>
  );
}
