import {
  Button,
  CircularProgress,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
} from '@mui/material';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { isEmail } from '../../lib/validation';
import { AuthField } from './AuthField';

export interface ForgotPasswordDialogProps {
  open: boolean;
  initialEmail: string;
  pending: boolean;
  onConfirm: (email: string) => void;
  onClose: () => void;
}

/** Forgot password: asks for the e-mail, Confirm mails a reset link (spec 1 §2.3). */
export function ForgotPasswordDialog(props: ForgotPasswordDialogProps) {
  return (
    <Dialog open={props.open} onClose={props.onClose} fullWidth maxWidth="xs" aria-labelledby="forgot-title">
      {/* The dialog unmounts its content once closed: each opening starts from the login form's e-mail. */}
      <ForgotPasswordContent {...props} />
    </Dialog>
  );
}

function ForgotPasswordContent({ initialEmail, pending, onConfirm, onClose }: ForgotPasswordDialogProps) {
  const { t } = useTranslation('auth');
  const [email, setEmail] = useState(initialEmail);
  const valid = isEmail(email);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (valid && !pending) onConfirm(email.trim());
  };
  return (
    <form onSubmit={submit} noValidate>
      <DialogTitle id="forgot-title">{t('forgotTitle')}</DialogTitle>
      <DialogContent>
        <DialogContentText sx={{ mb: 2 }}>{t('forgotText')}</DialogContentText>
        <AuthField
          label={t('email')}
          type="email"
          autoComplete="email"
          autoFocus
          fullWidth
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          error={email !== '' && !valid}
          helperText={email !== '' && !valid ? t('invalidEmail') : ' '}
        />
      </DialogContent>
      <DialogActions sx={{ px: 3, pb: 2 }}>
        <Button onClick={onClose}>{t('cancel')}</Button>
        <Button
          type="submit"
          variant="contained"
          disabled={!valid || pending}
          startIcon={pending ? <CircularProgress size={16} color="inherit" /> : null}
        >
          {t('confirm')}
        </Button>
      </DialogActions>
    </form>
  );
}
