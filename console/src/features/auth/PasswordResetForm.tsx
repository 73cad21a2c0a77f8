import { Alert, Box, Link, Stack } from '@mui/material';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink } from 'react-router';
import { isStrongPassword } from '../../lib/validation';
import { NewPasswordFields } from './NewPasswordFields';
import { SubmitButton } from './SubmitButton';

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
  const valid = password !== '' && confirm === password && isStrongPassword(password);
  const sent = pending || outcome !== null;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (valid && !sent) onSubmit(password);
  };

  return (
    <Box component="form" noValidate onSubmit={submit}>
      <Stack spacing={2}>
        <NewPasswordFields
          password={password}
          confirm={confirm}
          onPasswordChange={setPassword}
          onConfirmChange={setConfirm}
          flagMismatch
          autoFocus
          disabled={outcome?.ok === true}
        />
        {outcome?.ok === true && <Alert severity="success">{t('passwordChanged')}</Alert>}
        {outcome?.ok === false && (
          <Alert severity="error">
            {t('passwordNotChanged')}: {outcome.message}
          </Alert>
        )}
        <SubmitButton pending={pending} disabled={!valid || sent}>
          {t('confirm')}
        </SubmitButton>
        <Link component={RouterLink} to="/login" sx={{ alignSelf: 'center' }}>
          {t('backToLogin')}
        </Link>
      </Stack>
    </Box>
  );
}
