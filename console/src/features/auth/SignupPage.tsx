import { Alert, Link, Stack } from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useSearchParams } from 'react-router';
import { usePlatformPreferences, useInvitation, useRegister } from '../../api/queries';
import { FullPageSpinner } from '../../app/guards';
import { registrationProblem } from '../../lib/validation';
import { toasts } from '../toasts/toast-store';
import { AuthLayout } from './AuthLayout';
import { SignupForm, type SignupValues } from './SignupForm';

/**
 * /signup (spec 1 §2.4): reads ?invite= (the invitation code) and ?user= (the e-mail).
 *
 * No bot-check widget: the API checks a bot token only when a provider and secret are
 * configured (api/src/services/bot-check.ts) and publishes no site key to show a widget with.
 */
export default function SignupPage() {
  const { t } = useTranslation('auth');
  const [params, setParams] = useSearchParams();
  const inviteCode = params.get('invite') ?? '';
  const preferences = usePlatformPreferences();
  const invitation = useInvitation(inviteCode || null);
  const register = useRegister();
  const [done, setDone] = useState(false);

  if (preferences.isPending || (inviteCode && invitation.isPending)) return <FullPageSpinner />;
  const invited = inviteCode ? (invitation.data ?? null) : null;
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
      },
      {
        onSuccess: () => setDone(true),
        onError: (error) =>
          toasts.show({ title: t('registrationError'), text: error.message, type: 'danger' }),
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
