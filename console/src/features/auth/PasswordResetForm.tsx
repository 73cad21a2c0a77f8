import { Alert, Box, Button, CircularProgress, Link, Stack } from '@mui/material';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink } from 'react-router';
import { isStrongPassword } from '../../lib/validation';
import { PasswordField } from './PasswordField';

export type ResetOutcome = { ok: true } | { ok: false; message: string } | null;

export interface PasswordResetFormProps {
  pending: boolean;
  /** null until the answer came (idle, then sent: success or failure). */
  outcome: ResetOutcome;
  onSubmit: (password: string) => void;
}

/**
 * Password change by token (spec 1 §2.5): new password and confirmation; Confirm stays
 * disabled while they are invalid and once sent.
 */
export function PasswordResetForm({ pending, outcome, onSubmit }: PasswordResetFormProps) {
  const { t } = useTranslation('auth');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const mismatch = confirm !== '' && confirm !== password;
  const weak = password !== '' && !isStrongPassword(password);
  const valid = password !== '' && confirm === password && !weak;
  const sent = pending || outcome !== null;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (valid && !sent) onSubmit(password);
  };

  return (
    <Box component="form" noValidate onSubmit={submit}>
      <Stack spacing={2}>
        <PasswordField
          label={t('password')}
          name="password"
          autoComplete="new-password"
          autoFocus
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          helperText={weak ? t('weakPassword') : undefined}
          disabled={outcome?.ok === true}
          fullWidth
        />
        <PasswordField
          label={t('confirmPassword')}
          name="confirm"
          autoComplete="new-password"
          value={confirm}
          onChange={(e) => setConfirm(e.target.value)}
          error={mismatch}
          helperText={mismatch ? t('passwordsNotMatching') : undefined}
          disabled={outcome?.ok === true}
          fullWidth
        />
        {outcome?.ok === true && <Alert severity="success">{t('passwordChanged')}</Alert>}
        {outcome?.ok === false && (
          <Alert severity="error">
            {t('passwordNotChanged')}: {outcome.message}
          </Alert>
        )}
        <Button
          type="submit"
          variant="contained"
          size="large"
          fullWidth
          disabled={!valid || sent}
          startIcon={
            pending ? <CircularProgress size={18} color="inherit" aria-label={t('loading')} /> : null
          }
        >
          {t('confirm')}
        </Button>
        <Link component={RouterLink} to="/login" sx={{ alignSelf: 'center' }}>
          {t('backToLogin')}
        </Link>
      </Stack>
    </Box>
  );
}
