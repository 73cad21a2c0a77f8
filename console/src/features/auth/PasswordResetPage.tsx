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
  // The API names the token when the link is malformed, unknown, used or expired: say so in the
  // person's language and where to get a new one, instead of the API's English.
  const failure = reset.error?.message.startsWith('token:') ? t('resetLinkInvalid') : reset.error?.message;
  return (
    <AuthLayout title={t('resetTitle')}>
      <PasswordResetForm
        pending={reset.isPending}
        outcome={
          reset.isSuccess ? { ok: true } : reset.isError ? { ok: false, message: failure ?? '' } : null
        }
        onSubmit={(password) => reset.mutate(password)}
      />
    </AuthLayout>
  );
}
