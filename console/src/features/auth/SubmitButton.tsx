import { Button, CircularProgress } from '@mui/material';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

/** The full-width submit button of the screens before sign-in, with a spinner while pending. */
export function SubmitButton({
  pending,
  disabled = pending,
  children,
}: {
  pending: boolean;
  /** Disabled while pending unless said otherwise. */
  disabled?: boolean;
  children: ReactNode;
}) {
  const { t } = useTranslation('auth');
  return (
    <Button
      type="submit"
      variant="contained"
      size="large"
      fullWidth
      disabled={disabled}
      startIcon={pending ? <CircularProgress size={18} color="inherit" aria-label={t('loading')} /> : null}
    >
      {children}
    </Button>
  );
}
