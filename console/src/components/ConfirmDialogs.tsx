import { Button, Dialog, DialogActions, DialogContent, DialogContentText, DialogTitle } from '@mui/material';
import { useTranslation } from 'react-i18next';

/**
 * 'Confirm deleting: {name}' before one or several items go (spec 1 §2.7, spec 2 §2). The texts
 * come from the feature's namespace: `confirmDeleting`, `confirmDeletingText` and `deleteKey`.
 */
export function ConfirmDeleteDialog({
  ns,
  deleteKey = 'delete',
  names,
  busy,
  onConfirm,
  onCancel,
}: {
  ns: string;
  deleteKey?: string;
  names: string[] | null;
  busy: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const { t } = useTranslation(ns);
  return (
    <Dialog open={names !== null} onClose={busy ? undefined : onCancel} maxWidth="xs" fullWidth>
      <DialogTitle sx={{ wordBreak: 'break-word' }}>
        {t('confirmDeleting', { name: (names ?? []).join(', ') })}
      </DialogTitle>
      <DialogContent>
        <DialogContentText>{t('confirmDeletingText')}</DialogContentText>
      </DialogContent>
      <DialogActions>
        <Button onClick={onCancel} disabled={busy}>
          {t('cancel', { ns: 'common' })}
        </Button>
        <Button color="error" variant="contained" onClick={onConfirm} disabled={busy}>
          {t(deleteKey)}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

/**
 * The unsaved-changes prompt of an editor page (spec 1 §4, spec 2 §2); texts `leaveTitle`,
 * `leaveText`, `stay` and `leave` of the feature's namespace.
 */
export function LeaveDialog({
  ns,
  open,
  onStay,
  onLeave,
}: {
  ns: string;
  open: boolean;
  onStay: () => void;
  onLeave: () => void;
}) {
  const { t } = useTranslation(ns);
  return (
    <Dialog open={open} onClose={onStay} maxWidth="xs" fullWidth>
      <DialogTitle>{t('leaveTitle')}</DialogTitle>
      <DialogContent>
        <DialogContentText>{t('leaveText')}</DialogContentText>
      </DialogContent>
      <DialogActions>
        <Button onClick={onStay}>{t('stay')}</Button>
        <Button color="warning" variant="contained" onClick={onLeave}>
          {t('leave')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
