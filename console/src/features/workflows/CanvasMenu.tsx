import { Divider, Menu, MenuItem } from '@mui/material';
import { useTranslation } from 'react-i18next';

export interface MenuEntry {
  key: string;
  label: string;
  onClick: () => void;
  disabled?: boolean;
  divider?: boolean;
}

/** The canvas's context menu at the pointer (spec 2 §2: actions per item). */
export function CanvasMenu({
  at,
  entries,
  onClose,
}: {
  at: { x: number; y: number } | null;
  entries: MenuEntry[];
  onClose: () => void;
}) {
  const { t } = useTranslation('workflows');
  return (
    <Menu
      open={at !== null && entries.length > 0}
      onClose={onClose}
      anchorReference="anchorPosition"
      anchorPosition={at ? { top: at.y, left: at.x } : undefined}
      slotProps={{ list: { 'aria-label': t('canvasLabel'), dense: true } }}
    >
      {entries.flatMap((entry) => [
        ...(entry.divider ? [<Divider key={`${entry.key}-divider`} />] : []),
        <MenuItem
          key={entry.key}
          disabled={entry.disabled}
          onClick={() => {
            onClose();
            entry.onClick();
          }}
        >
          {entry.label}
        </MenuItem>,
      ])}
    </Menu>
  );
}
