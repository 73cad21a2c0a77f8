import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import { ApiError } from '../../api/client';
import { useForgotPassword, useLogin } from '../../api/queries';
import { toastFailure } from '../toasts/outcome';
import { toasts } from '../toasts/toast-store';
import { AuthLayout, FoundationLinks } from './AuthLayout';
import { ForgotPasswordDialog } from './ForgotPasswordDialog';
import { LoginForm, type LoginValues } from './LoginForm';
import { rememberedUsername, rememberUsername, safeRedirect } from './navigation';

/** /login (spec 1 §2.3): reads ?invite= (sent as invitation_link) and ?backurl=. */
export default function LoginPage() {
  const { t } = useTranslation('auth');
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const invite = params.get('invite') ?? '';
  const backUrl = safeRedirect(params.get('backurl'));
  const login = useLogin();
  const forgot = useForgotPassword();
  const [forgotOpen, setForgotOpen] = useState<string | null>(null);
  const [remembered] = useState(rememberedUsername);

  const signIn = async ({ username, password, remember }: LoginValues) => {
    try {
      const session = await login.mutateAsync({
        username,
        password,
        invitation_link: invite || undefined,
        backUrl: backUrl ?? undefined,
      });
      rememberUsername(remember ? username : null);
      // useLogin has put `me` back to pending: /login's guard waits with a spinner, and the
      // guard of the next page asks who we are. /login itself is no place to go back to.
      const target = safeRedirect(session.url) ?? backUrl;
      await navigate(target && !/^\/login(?:[/?#]|$)/.test(target) ? target : '/dashboard', {
        replace: true,
      });
    } catch (error) {
      // A wrong password is the inline message; anything else (not verified yet, too many
      // attempts, the server down) also says why.
      if (!(error instanceof ApiError && error.status === 401)) toastFailure(error, t('signInFailed'));
    }
  };

  const sendResetLink = (email: string) =>
    forgot.mutate(email, {
      onSuccess: () => {
        setForgotOpen(null);
        toasts.show({ title: t('resetLinkSent'), text: t('resetLinkSentText', { email }), type: 'success' });
      },
      onError: (error) => toastFailure(error),
    });

  return (
    <AuthLayout title={t('loginTitle')} footer={<FoundationLinks />}>
      <LoginForm
        initialUsername={remembered}
        initialRemember={remembered !== ''}
        pending={login.isPending}
        failed={login.isError}
        signupHref={invite ? `/signup?invite=${encodeURIComponent(invite)}` : '/signup'}
        onSubmit={(values) => void signIn(values)}
        onForgotPassword={(username) => setForgotOpen(username)}
      />
      <ForgotPasswordDialog
        open={forgotOpen !== null}
        initialEmail={forgotOpen ?? ''}
        pending={forgot.isPending}
        onConfirm={sendResetLink}
        onClose={() => setForgotOpen(null)}
      />
    </AuthLayout>
  );
}
