import { Alert, Link, Stack } from '@mui/material';
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useSearchParams } from 'react-router';
import { usePlatformPreferences, useInvitation, useRegister } from '../../api/queries';
import { FullPageSpinner } from '../../app/guards';
import { registrationProblem } from '../../lib/validation';
import { toasts } from '../toasts/toast-store';
import { AuthLayout } from './AuthLayout';
import { BotCheck, type BotCheckHandle } from './BotCheck';
import { SignupForm, type SignupValues } from './SignupForm';

/**
 * /signup (spec 1 §2.4): reads ?invite= (the invitation code) and ?user= (the e-mail).
 * With a bot check configured (GET /illumina/preferences' bot_check) its widget's token
 * goes in re_captcha_token; a refused registration spent it, so the widget starts over.
 */
export default function SignupPage() {
  const { t } = useTranslation('auth');
  const [params, setParams] = useSearchParams();
  const inviteCode = params.get('invite') ?? '';
  const preferences = usePlatformPreferences();
  const invitation = useInvitation(inviteCode || null);
  const register = useRegister();
  const [done, setDone] = useState(false);
  const [botToken, setBotToken] = useState<string | null>(null);
  const botCheckWidget = useRef<BotCheckHandle>(null);

  if (preferences.isPending || (inviteCode && invitation.isPending)) return <FullPageSpinner />;
  const invited = inviteCode ? (invitation.data ?? null) : null;
  const botCheck = preferences.data?.bot_check ?? null;
  const title = invited ? t('joinTitle', { organization: invited.organization }) : t('signupTitle');

  if (done)
    return (
      <AuthLayout title={title}>
        <Stack spacing={3} sx={{ alignItems: 'center' }}>
          <Alert severity="success" sx={{ width: '100%' }}>
            {t('registrationSuccess')}
          </Alert>
          <Link component={RouterLink} to="/login">
            {t('backToLogin')}
          </Link>
        </Stack>
      </AuthLayout>
    );

  const submit = (values: SignupValues) => {
    const problem = registrationProblem(values);
    if (problem) {
      toasts.show({ title: t(problem.title), text: t(problem.text), type: 'warning' });
      return;
    }
    const useInvite = values.tab === 'invitation';
    register.mutate(
      {
        first_name: values.first_name,
        last_name: values.last_name,
        email: values.email,
        password: values.password,
        use_invitation: useInvite,
        ...(useInvite ? { invitation_link: values.tabValue } : { organization: values.tabValue }),
        ...(botCheck && botToken ? { re_captcha_token: botToken } : {}),
      },
      {
        onSuccess: () => setDone(true),
        onError: (error) => {
          botCheckWidget.current?.reset();
          toasts.show({ title: t('registrationError'), text: error.message, type: 'danger' });
        },
      },
    );
  };

  return (
    <AuthLayout title={title}>
      <SignupForm
        allowNewOrganization={preferences.data?.allow_new_organization === true}
        inviteCode={inviteCode}
        invitation={invited}
        initialEmail={invited?.user ?? params.get('user') ?? ''}
        pending={register.isPending}
        failed={register.isError}
        onSubmit={submit}
        botCheck={botCheck && <BotCheck ref={botCheckWidget} config={botCheck} onToken={setBotToken} />}
        awaitingBotCheck={botCheck !== null && botToken === null}
        onDropInvitation={() =>
          setParams(
            (current) => {
              const next = new URLSearchParams(current);
              next.delete('invite');
              return next;
            },
            { replace: true },
          )
        }
      />
    </AuthLayout>
  );
}
