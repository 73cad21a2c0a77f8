import AddIcon from '@mui/icons-material/Add';
import DeleteOutlinedIcon from '@mui/icons-material/DeleteOutlined';
import UploadFileIcon from '@mui/icons-material/UploadFile';
import { Box, Button, IconButton, Stack, TextField, Typography } from '@mui/material';
import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { toastFailure } from '../toasts/outcome';
import { toasts } from '../toasts/toast-store';
import { builder } from './queries';
import { isVariableFile, VARIABLE_FILE_ACCEPT } from './rules';
import type { Variable } from './types';

/** Imported rows replace rows of the same name and add the others. */
export function mergeVariables(rows: Variable[], imported: Variable[]): Variable[] {
  const names = new Set(imported.map((row) => row.name));
  return [...rows.filter((row) => !names.has(row.name)), ...imported];
}

/** The environment variables of the settings panel, with import from a csv/json/yml file. */
export function VariablesEditor({
  value,
  readOnly,
  onChange,
}: {
  value: Variable[];
  readOnly: boolean;
  onChange: (rows: Variable[]) => void;
}) {
  const { t } = useTranslation('sandboxes');
  const inputId = useId();
  const [importing, setImporting] = useState(false);
  const set = (index: number, patch: Partial<Variable>) =>
    onChange(value.map((row, i) => (i === index ? { ...row, ...patch } : row)));
  const importFile = async (file: File | undefined) => {
    if (!file) return;
    if (!isVariableFile(file.name)) {
      toasts.show({ title: t('invalidExtension'), text: t('variableFileText'), type: 'warning' });
      return;
    }
    setImporting(true);
    try {
      onChange(mergeVariables(value, await builder.parseVariables(file)));
    } catch (error) {
      toastFailure(error);
    } finally {
      setImporting(false);
    }
  };
  return (
    <div>
      <Typography variant="subtitle2" gutterBottom>
        {t('environment')}
      </Typography>
      <Stack spacing={1}>
        {value.length === 0 && (
          <Typography variant="body2" color="text.secondary">
            {t('noVariables')}
          </Typography>
        )}
        {value.map((row, index) => (
          <Stack key={index} direction="row" spacing={1} sx={{ alignItems: 'center' }} data-testid="env-row">
            <TextField
              size="small"
              label={t('variableName')}
              value={row.name}
              disabled={readOnly}
              onChange={(e) => set(index, { name: e.target.value })}
            />
            <TextField
              size="small"
              label={t('variableValue')}
              value={row.value}
              disabled={readOnly}
              onChange={(e) => set(index, { value: e.target.value })}
            />
            {!readOnly && (
              <IconButton
                aria-label={t('removeVariable')}
                onClick={() => onChange(value.filter((_r, i) => i !== index))}
              >
                <DeleteOutlinedIcon />
              </IconButton>
            )}
          </Stack>
        ))}
      </Stack>
      {!readOnly && (
        <Box sx={{ mt: 1, display: 'flex', gap: 1, flexWrap: 'wrap' }}>
          <Button startIcon={<AddIcon />} onClick={() => onChange([...value, { name: '', value: '' }])}>
            {t('addVariable')}
          </Button>
          <input
            id={inputId}
            type="file"
            hidden
            accept={VARIABLE_FILE_ACCEPT}
            onChange={(e) => {
              void importFile(e.target.files?.[0]);
              e.target.value = '';
            }}
          />
          <Button component="label" htmlFor={inputId} startIcon={<UploadFileIcon />} disabled={importing}>
            {t('importVariables')}
          </Button>
        </Box>
      )}
    </div>
  );
}
