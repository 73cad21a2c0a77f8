import UploadFileIcon from '@mui/icons-material/UploadFile';
import {
  Box,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  LinearProgress,
  Typography,
} from '@mui/material';
import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { toastFailure, toastSuccess } from '../toasts/outcome';
import { toasts } from '../toasts/toast-store';
import { builder } from './queries';
import { isFlaggedUpload } from './rules';
import { uploadToContainer } from './upload';

/**
 * A file into the container (spec 1 §4): flagged extensions refused, the name checked first, an
 * 'Overwrite conflict' question when it exists, then the upload with its percentage.
 */
export function FileUpload({ container, disabled }: { container: string; disabled?: boolean }) {
  const { t } = useTranslation('sandboxes');
  const inputId = useId();
  const [conflict, setConflict] = useState<File | null>(null);
  const [progress, setProgress] = useState<{ name: string; percent: number } | null>(null);

  const send = async (file: File) => {
    setConflict(null);
    setProgress({ name: file.name, percent: 0 });
    try {
      await uploadToContainer(container, file, (percent) => setProgress({ name: file.name, percent }));
      toastSuccess(t('uploaded', { name: file.name }));
    } catch (error) {
      toastFailure(error, t('uploadFailed'));
    } finally {
      setProgress(null);
    }
  };
  const choose = async (file: File | undefined) => {
    if (!file) return;
    if (isFlaggedUpload(file.name)) {
      toasts.show({ title: t('invalidExtension'), text: t('flaggedUpload'), type: 'warning' });
      return;
    }
    try {
      if (await builder.exists(container, file.name)) setConflict(file);
      else await send(file);
    } catch (error) {
      toastFailure(error, t('uploadFailed'));
    }
  };

  return (
    <Box>
      <input
        id={inputId}
        type="file"
        hidden
        onChange={(e) => {
          void choose(e.target.files?.[0]);
          e.target.value = '';
        }}
      />
      <Button
        component="label"
        htmlFor={inputId}
        variant="outlined"
        startIcon={<UploadFileIcon />}
        disabled={disabled || progress !== null}
      >
        {t('upload')}
      </Button>
      {progress && (
        <Box sx={{ mt: 1 }} role="status">
          <Typography variant="caption">{t('uploading', progress)}</Typography>
          <LinearProgress variant="determinate" value={progress.percent} aria-label={t('upload')} />
        </Box>
      )}
      <Dialog open={conflict !== null} onClose={() => setConflict(null)} maxWidth="xs" fullWidth>
        <DialogTitle>{t('overwriteConflict')}</DialogTitle>
        <DialogContent>
          <DialogContentText>{t('overwriteText', { filename: conflict?.name ?? '' })}</DialogContentText>
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setConflict(null)}>{t('cancel', { ns: 'common' })}</Button>
          <Button variant="contained" onClick={() => conflict && void send(conflict)}>
            {t('overwrite')}
          </Button>
        </DialogActions>
      </Dialog>
    </Box>
  );
}
