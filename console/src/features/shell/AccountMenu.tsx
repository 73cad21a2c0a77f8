import FeedbackOutlined from '@mui/icons-material/FeedbackOutlined';
import Logout from '@mui/icons-material/Logout';
import PersonOutline from '@mui/icons-material/PersonOutlined';
import {
  Avatar,
  Box,
  Divider,
  IconButton,
  ListItemIcon,
  ListItemText,
  Menu,
  MenuItem,
  Tooltip,
  Typography,
} from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink } from 'react-router';

export interface Person {
  fullName: string;
  initials: string;
  /** Translated role, or '' when the person has none in this organization. */
  roleLabel: string;
  email: string;
  avatarUrl: string | null;
}

export function PersonAvatar({ person, size = 32 }: { person: Person; size?: number }) {
  return (
    <Avatar
      src={person.avatarUrl ?? undefined}
      alt={person.fullName}
      sx={{
        width: size,
        height: size,
        fontSize: size * 0.42,
        fontWeight: 600,
        bgcolor: 'secondary.dark',
        color: 'secondary.contrastText',
      }}
    >
      {person.initials}
    </Avatar>
  );
}

/** Avatar, full name and role; the person's name and role head the menu. */
export function PersonSummary({ person }: { person: Person }) {
  return (
    <Box sx={{ display: 'flex', gap: 1.5, alignItems: 'center', minWidth: 0 }}>
      <PersonAvatar person={person} size={40} />
      <Box sx={{ minWidth: 0 }}>
        <Typography variant="subtitle2" noWrap>
          {person.fullName}
        </Typography>
        {person.roleLabel && (
          <Typography variant="caption" color="text.secondary" noWrap component="div">
            {person.roleLabel}
          </Typography>
        )}
      </Box>
    </Box>
  );
}

export interface AccountMenuProps {
  person: Person;
  onLogout: () => void;
  /** Also offer 'Send feedback' here (narrow bars, where its own button does not fit). */
  onFeedback?: () => void;
}

/** The avatar menu: View profile and Logout (spec 1 §2.2). */
export function AccountMenu({ person, onLogout, onFeedback }: AccountMenuProps) {
  const { t } = useTranslation('shell');
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const close = () => setAnchor(null);
  return (
    <>
      <Tooltip title={person.fullName}>
        <IconButton
          aria-label={t('account.button')}
          aria-haspopup="menu"
          aria-expanded={anchor ? 'true' : undefined}
          onClick={(e) => setAnchor(e.currentTarget)}
          sx={{ p: 0.5 }}
        >
          <PersonAvatar person={person} />
        </IconButton>
      </Tooltip>
      <Menu
        open={Boolean(anchor)}
        anchorEl={anchor}
        onClose={close}
        anchorOrigin={{ vertical: 'bottom', horizontal: 'right' }}
        transformOrigin={{ vertical: 'top', horizontal: 'right' }}
        slotProps={{ paper: { sx: { minWidth: 240, maxWidth: 320 } } }}
      >
        <Box sx={{ px: 2, py: 1.5 }}>
          <PersonSummary person={person} />
        </Box>
        <Divider />
        <MenuItem component={RouterLink} to="/profile" onClick={close}>
          <ListItemIcon>
            <PersonOutline fontSize="small" />
          </ListItemIcon>
          <ListItemText>{t('account.viewProfile')}</ListItemText>
        </MenuItem>
        {onFeedback && (
          <MenuItem
            onClick={() => {
              close();
              onFeedback();
            }}
          >
            <ListItemIcon>
              <FeedbackOutlined fontSize="small" />
            </ListItemIcon>
            <ListItemText>{t('feedback.open')}</ListItemText>
          </MenuItem>
        )}
        <MenuItem
          onClick={() => {
            close();
            onLogout();
          }}
        >
          <ListItemIcon>
            <Logout fontSize="small" />
          </ListItemIcon>
          <ListItemText>{t('account.logout')}</ListItemText>
        </MenuItem>
      </Menu>
    </>
  );
}
