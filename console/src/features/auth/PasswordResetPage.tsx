import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import { useResetPassword } from '../../api/queries';
import { AuthLayout } from './AuthLayout';
import { PasswordResetForm } from './PasswordResetForm';

/** /password/:token: POST /password/{token} with the new password; 200 means success. */
export default function PasswordResetPage() {
  const { t } = useTranslation('auth');
  const { token = '' } = useParams();
  const reset = useResetPassword(token);
  return (
    <AuthLayout title={t('resetTitle')}>
      <PasswordResetForm
        pending={reset.isPending}
        outcome={
          reset.isSuccess ? { ok: true } : reset.isError ? { ok: false, message: reset.error.message } : null
        }
        onSubmit={(password) => reset.mutate(password)}
      />
    </AuthLayout>
  );
}
