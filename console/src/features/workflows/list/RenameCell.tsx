import CheckIcon from '@mui/icons-material/Check';
import CloseIcon from '@mui/icons-material/Close';
import { IconButton, Link, Stack, TextField } from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

/**
 * The inline rename of spec 2 §2: click the name; the check button or Enter saves when the name
 * changed and is non-empty; the cross button or Escape cancels.
 */
export function RenameCell({
  name,
  editable,
  onRename,
}: {
  name: string;
  editable: boolean;
  onRename: (name: string) => void;
}) {
  const { t } = useTranslation('workflows');
  const [value, setValue] = useState<string | null>(null);
  if (value === null)
    return editable ? (
      <Link
        component="button"
        type="button"
        underline="hover"
        color="inherit"
        aria-label={t('rename', { name })}
        onClick={() => setValue(name)}
        sx={{ textAlign: 'left', fontWeight: 500 }}
      >
        {name}
      </Link>
    ) : (
      <span>{name}</span>
    );
  const confirm = () => {
    const next = value.trim();
    if (next !== '' && next !== name) onRename(next);
    setValue(null);
  };
  return (
    <Stack direction="row" spacing={0.5} sx={{ alignItems: 'center' }}>
      <TextField
        size="small"
        autoFocus
        value={value}
        onChange={(e) => setValue(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' || e.key === 'NumpadEnter') confirm();
          if (e.key === 'Escape') setValue(null);
        }}
        slotProps={{ htmlInput: { 'aria-label': t('rename', { name }) } }}
      />
      <IconButton size="small" aria-label={t('renameConfirm')} onClick={confirm}>
        <CheckIcon fontSize="small" />
      </IconButton>
      <IconButton size="small" aria-label={t('renameCancel')} onClick={() => setValue(null)}>
        <CloseIcon fontSize="small" />
      </IconButton>
    </Stack>
  );
}
