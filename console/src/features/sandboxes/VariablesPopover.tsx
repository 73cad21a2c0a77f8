import AddIcon from '@mui/icons-material/Add';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlined';
import { Box, Button, IconButton, Popover, Stack, TextField, Typography } from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { toasts } from '../toasts/toast-store';
import { hasNamelessValue, sameVariables, savedVariables } from './rules';
import type { Variable } from './types';

export interface VariablesPopoverProps {
  anchor: HTMLElement | null;
  name: string;
  variables: Variable[];
  saving: boolean;
  onSave: (variables: Variable[]) => void;
  onClose: () => void;
}

/**
 * Key/value rows of a sandbox (spec 1 §2.7, §5): add, remove, save (only when changed, never
 * with a value lacking its name) and cancel; closing with unsaved changes warns instead.
 */
export function VariablesPopover({
  anchor,
  name,
  variables,
  saving,
  onSave,
  onClose,
}: VariablesPopoverProps) {
  const { t } = useTranslation('sandboxes');
  const [rows, setRows] = useState<Variable[]>(variables);
  const changed = !sameVariables(rows, variables);
  const set = (index: number, patch: Partial<Variable>) =>
    setRows(rows.map((row, i) => (i === index ? { ...row, ...patch } : row)));

  const close = () => {
    if (changed) toasts.show({ title: t('variables'), text: t('unsavedChanges'), type: 'warning' });
    else onClose();
  };
  const save = () => {
    if (hasNamelessValue(rows)) {
      toasts.show({ title: t('variables'), text: t('emptyValues'), type: 'warning' });
      return;
    }
    onSave(savedVariables(rows));
  };

  return (
    <Popover
      open={Boolean(anchor)}
      anchorEl={anchor}
      onClose={close}
      anchorOrigin={{ vertical: 'bottom', horizontal: 'right' }}
      transformOrigin={{ vertical: 'top', horizontal: 'right' }}
      slotProps={{ paper: { role: 'dialog', 'aria-label': t('variablesOf', { name }) } }}
    >
      <Box sx={{ p: 2, width: 'min(460px, calc(100vw - 32px))' }}>
        <Typography variant="subtitle1" gutterBottom>
          {t('variablesOf', { name })}
        </Typography>
        <Stack spacing={1}>
          {rows.length === 0 && <Typography color="text.secondary">{t('noVariables')}</Typography>}
          {rows.map((row, index) => (
            <Stack
              key={index}
              direction="row"
              spacing={1}
              sx={{ alignItems: 'center' }}
              data-testid="variable-row"
            >
              <TextField
                size="small"
                label={t('variableName')}
                value={row.name}
                error={row.name.trim() === '' && (row.value !== '' || changed)}
                onChange={(e) => set(index, { name: e.target.value })}
              />
              <TextField
                size="small"
                label={t('variableValue')}
                value={row.value}
                error={row.value === '' && changed}
                onChange={(e) => set(index, { value: e.target.value })}
              />
              <IconButton
                aria-label={t('removeVariable')}
                onClick={() => setRows(rows.filter((_r, i) => i !== index))}
              >
                <DeleteOutlineIcon />
              </IconButton>
            </Stack>
          ))}
        </Stack>
        <Stack direction="row" spacing={1} sx={{ mt: 2, justifyContent: 'space-between' }}>
          <Button startIcon={<AddIcon />} onClick={() => setRows([...rows, { name: '', value: '' }])}>
            {t('addVariable')}
          </Button>
          <Stack direction="row" spacing={1}>
            <Button onClick={onClose} disabled={saving}>
              {t('cancel', { ns: 'common' })}
            </Button>
            <Button variant="contained" onClick={save} disabled={!changed || saving}>
              {t('save')}
            </Button>
          </Stack>
        </Stack>
      </Box>
    </Popover>
  );
}
