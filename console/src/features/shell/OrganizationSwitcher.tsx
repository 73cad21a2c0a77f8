import BusinessOutlined from '@mui/icons-material/BusinessOutlined';
import Check from '@mui/icons-material/Check';
import ExpandMore from '@mui/icons-material/ExpandMore';
import { Button, ListItemIcon, ListItemText, ListSubheader, Menu, MenuItem } from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

export interface OrganizationChoice {
  id: string;
  name: string;
}

export interface OrganizationSwitcherProps {
  organizations: OrganizationChoice[];
  currentId: string | null;
  onSwitch: (name: string) => void;
  switching: boolean;
  /** Narrow bars drop the building icon to leave room for the name. */
  compact?: boolean;
}

/** Current organization's name; its menu lists the person's organizations (spec 1 §2.2). */
export function OrganizationSwitcher({
  organizations,
  currentId,
  onSwitch,
  switching,
  compact = false,
}: OrganizationSwitcherProps) {
  const { t } = useTranslation('shell');
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const current = organizations.find((o) => o.id === currentId);
  return (
    <>
      <Button
        color="inherit"
        onClick={(e) => setAnchor(e.currentTarget)}
        disabled={switching || organizations.length === 0}
        aria-haspopup="menu"
        aria-expanded={anchor ? 'true' : undefined}
        // The name may be cut short in a narrow bar: the tooltip says it in full.
        title={current ? `${current.name} · ${t('organization.switch')}` : t('organization.switch')}
        startIcon={compact ? undefined : <BusinessOutlined />}
        endIcon={organizations.length > 0 ? <ExpandMore /> : undefined}
        sx={{ textTransform: 'none', fontWeight: 600, maxWidth: '100%', minWidth: 0 }}
      >
        <span style={{ overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }}>
          {current?.name ?? t('organization.none')}
        </span>
      </Button>
      <Menu
        open={Boolean(anchor)}
        anchorEl={anchor}
        onClose={() => setAnchor(null)}
        slotProps={{ paper: { sx: { minWidth: 220 } } }}
      >
        <ListSubheader sx={{ lineHeight: '36px', bgcolor: 'transparent' }}>
          {t('organization.heading')}
        </ListSubheader>
        {organizations.map((organization) => {
          const isCurrent = organization.id === currentId;
          return (
            <MenuItem
              key={organization.id}
              selected={isCurrent}
              onClick={() => {
                setAnchor(null);
                if (!isCurrent) onSwitch(organization.name);
              }}
            >
              <ListItemIcon>{isCurrent && <Check fontSize="small" />}</ListItemIcon>
              <ListItemText>{organization.name}</ListItemText>
            </MenuItem>
          );
        })}
      </Menu>
    </>
  );
}
