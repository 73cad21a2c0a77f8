import CheckCircleOutline from '@mui/icons-material/CheckCircleOutlineOutlined';
import ErrorOutline from '@mui/icons-material/ErrorOutlineOutlined';
import { CircularProgress, Link, Stack, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink } from 'react-router';

export type VerificationState = 'pending' | 'success' | 'fail';

/** E-mail verification (spec 1 §2.5): a spinner, then success with the countdown, or fail. */
export function VerificationView({ state, count }: { state: VerificationState; count: number }) {
  const { t } = useTranslation('auth');
  if (state === 'pending')
    return (
      <Stack spacing={2} sx={{ alignItems: 'center', py: 2 }}>
        <CircularProgress aria-label={t('verifying')} />
        <Typography color="text.secondary">{t('verifying')}</Typography>
      </Stack>
    );
  const ok = state === 'success';
  return (
    <Stack spacing={2} sx={{ alignItems: 'center', textAlign: 'center', py: 1 }} role="status">
      {ok ? (
        <CheckCircleOutline color="success" sx={{ fontSize: 56 }} />
      ) : (
        <ErrorOutline color="error" sx={{ fontSize: 56 }} />
      )}
      <Typography variant="h6" component="p">
        {ok ? t('verificationSuccess') : t('verificationFail')}
      </Typography>
      <Typography color="text.secondary">
        {ok ? t('verificationRedirect', { count }) : t('verificationFailText')}
      </Typography>
      <Link component={RouterLink} to="/login">
        {t('backToLogin')}
      </Link>
    </Stack>
  );
}
