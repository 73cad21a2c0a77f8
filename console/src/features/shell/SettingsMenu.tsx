import SettingsOutlined from '@mui/icons-material/SettingsOutlined';
import { IconButton, Menu, MenuItem, Tooltip } from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink } from 'react-router';
import type { SettingsEntry } from './settings-entries';

/** The settings gear; not rendered at all when the role has no entry (spec 1 §2.2). */
export function SettingsMenu({ entries }: { entries: SettingsEntry[] }) {
  const { t } = useTranslation('shell');
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  if (entries.length === 0) return null;
  const label = t('settings.button');
  return (
    <>
      <Tooltip title={label}>
        <IconButton
          aria-label={label}
          aria-haspopup="menu"
          aria-expanded={anchor ? 'true' : undefined}
          onClick={(e) => setAnchor(e.currentTarget)}
          color="inherit"
        >
          <SettingsOutlined />
        </IconButton>
      </Tooltip>
      <Menu
        open={Boolean(anchor)}
        anchorEl={anchor}
        onClose={() => setAnchor(null)}
        anchorOrigin={{ vertical: 'bottom', horizontal: 'right' }}
        transformOrigin={{ vertical: 'top', horizontal: 'right' }}
      >
        {entries.map((entry) => (
          <MenuItem key={entry.key} component={RouterLink} to={entry.to} onClick={() => setAnchor(null)}>
            {t(`settings.${entry.key}`)}
          </MenuItem>
        ))}
      </Menu>
    </>
  );
}
