import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { useVerify } from '../../api/queries';
import { AuthLayout } from './AuthLayout';
import { useCountdown, VERIFICATION_REDIRECT_SECONDS } from './useCountdown';
import { VerificationView, type VerificationState } from './VerificationView';

/** /verification/:token: GET /verify/{token}; a truthy result is success, then /login in 5 s. */
export default function VerificationPage() {
  const { t } = useTranslation('auth');
  const { token = '' } = useParams();
  const navigate = useNavigate();
  const verify = useVerify(token);
  const state: VerificationState = verify.isPending
    ? 'pending'
    : verify.isSuccess && verify.data
      ? 'success'
      : 'fail';
  const count = useCountdown(VERIFICATION_REDIRECT_SECONDS, state === 'success', () =>
    navigate('/login', { replace: true }),
  );
  return (
    <AuthLayout title={t('verificationTitle')}>
      <VerificationView state={state} count={count} />
    </AuthLayout>
  );
}
