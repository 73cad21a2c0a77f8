import { Button, CircularProgress, MenuItem, Paper, Stack, TextField, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { toasts } from '../toasts/toast-store';
import { canCreate, filterName } from './rules';
import { ARCHITECTURES, type Architecture } from './types';

export interface ImageChoice {
  image: string;
  version: string;
  architecture: Architecture;
  name: string;
}

export type ImageStatus =
  | { state: 'idle' | 'checking' | 'unknown' }
  | { state: 'failed'; reason: string }
  | { state: 'found'; versions: string[] };

/**
 * The Sandbox Image panel of a new sandbox (spec 1 §2.8): the source image (checked 600 ms after
 * typing stops), its version, the architecture (amd64 until arm builders exist), the sandbox's
 * name and Create.
 */
export function ImagePanel({
  choice,
  status,
  terminal,
  starting,
  onChange,
  onCreate,
}: {
  choice: ImageChoice;
  status: ImageStatus;
  terminal: boolean;
  starting: boolean;
  onChange: (choice: ImageChoice) => void;
  onCreate: () => void;
}) {
  const { t } = useTranslation('sandboxes');
  const versions = status.state === 'found' ? status.versions : [];
  const ready = canCreate({
    imageValid: status.state === 'found' && versions.includes(choice.version),
    name: choice.name,
    terminal,
  });
  const helper =
    status.state === 'checking'
      ? t('imageChecking')
      : status.state === 'unknown'
        ? t('imageUnknown')
        : status.state === 'failed'
          ? `${t('imageCheckFailed')} ${status.reason}`
          : status.state === 'found'
            ? t('imageFound', { count: versions.length })
            : ' ';
  return (
    <Paper variant="outlined" sx={{ p: 2 }} component="section" aria-label={t('imagePanel')}>
      <Typography variant="h6" component="h2" gutterBottom>
        {t('imagePanel')}
      </Typography>
      <Stack spacing={2}>
        <TextField
          label={t('sourceImage')}
          placeholder={t('sourceImagePlaceholder')}
          value={choice.image}
          disabled={terminal}
          error={status.state === 'unknown' || status.state === 'failed'}
          helperText={helper}
          onChange={(e) => onChange({ ...choice, image: e.target.value.trim(), version: '' })}
          slotProps={{
            input: { endAdornment: status.state === 'checking' ? <CircularProgress size={18} /> : undefined },
          }}
        />
        <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
          <TextField
            select
            fullWidth
            label={t('version')}
            value={versions.includes(choice.version) ? choice.version : ''}
            disabled={terminal || versions.length === 0}
            onChange={(e) => onChange({ ...choice, version: e.target.value })}
          >
            {versions.map((version) => (
              <MenuItem key={version} value={version}>
                {version}
              </MenuItem>
            ))}
          </TextField>
          <TextField
            select
            fullWidth
            label={t('architecture')}
            value={choice.architecture}
            slotProps={{ input: { readOnly: true } }}
          >
            {ARCHITECTURES.map((architecture) => (
              <MenuItem key={architecture} value={architecture}>
                {architecture}
              </MenuItem>
            ))}
          </TextField>
        </Stack>
        <TextField
          label={t('sandboxName')}
          value={choice.name}
          disabled={terminal}
          onChange={(e) => {
            const { name, rejected } = filterName(e.target.value);
            if (rejected)
              toasts.show({
                title: t('settingsError'),
                text: t('invalidCharacter', { chars: rejected }),
                type: 'warning',
              });
            onChange({ ...choice, name });
          }}
        />
        <Button
          variant="contained"
          onClick={onCreate}
          disabled={!ready || starting}
          startIcon={starting ? <CircularProgress size={16} color="inherit" /> : undefined}
          sx={{ alignSelf: 'flex-start' }}
        >
          {t('create')}
        </Button>
      </Stack>
    </Paper>
  );
}
