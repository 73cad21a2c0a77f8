import { TextField } from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { toasts } from '../toasts/toast-store';
import { filterName } from './rules';

/**
 * The inline rename of a list row: Enter saves when the name is non-empty and changed,
 * Escape (or leaving the field) cancels (spec 1 §2.7, §4).
 */
export function RenameField({
  name,
  onRename,
  onDone,
}: {
  name: string;
  onRename: (name: string) => void;
  onDone: () => void;
}) {
  const { t } = useTranslation('sandboxes');
  const [value, setValue] = useState(name);
  return (
    <TextField
      size="small"
      autoFocus
      value={value}
      slotProps={{ htmlInput: { 'aria-label': t('rename', { name }) } }}
      onChange={(event) => {
        const { name: kept, rejected } = filterName(event.target.value);
        if (rejected)
          toasts.show({
            title: t('settingsError'),
            text: t('invalidCharacter', { chars: rejected }),
            type: 'warning',
          });
        setValue(kept);
      }}
      onKeyDown={(event) => {
        if (event.key === 'Escape') onDone();
        if (event.key !== 'Enter' && event.key !== 'NumpadEnter') return;
        const next = value.trim();
        if (next !== '' && next !== name) onRename(next);
        onDone();
      }}
      onBlur={onDone}
    />
  );
}
