import { Button, CircularProgress, DialogActions } from '@mui/material';
import { useTranslation } from 'react-i18next';

/**
 * Cancel and Save of a profile dialog: both held while saving, Save with a spinner. Without
 * `onSave`, Save submits the dialog's form.
 */
export function SaveCancelActions({
  saving,
  canSave,
  onCancel,
  onSave,
}: {
  saving: boolean;
  canSave: boolean;
  onCancel: () => void;
  onSave?: () => void;
}) {
  const { t } = useTranslation('common');
  return (
    <DialogActions>
      <Button onClick={onCancel} disabled={saving}>
        {t('cancel')}
      </Button>
      <Button
        type={onSave ? 'button' : 'submit'}
        variant="contained"
        onClick={onSave}
        disabled={!canSave || saving}
        startIcon={saving ? <CircularProgress size={16} color="inherit" /> : undefined}
      >
        {t('save')}
      </Button>
    </DialogActions>
  );
}
