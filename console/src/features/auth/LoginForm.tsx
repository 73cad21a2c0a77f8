import { Alert, Box, Checkbox, FormControlLabel, Link, Stack, Typography } from '@mui/material';
import { useState, type FormEvent, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink } from 'react-router';
import { AuthField } from './AuthField';
import { PasswordField } from './PasswordField';
import { SubmitButton } from './SubmitButton';

export interface LoginValues {
  username: string;
  password: string;
  remember: boolean;
}

export interface LoginFormProps {
  initialUsername: string;
  /** Remember me starts ticked when a username was remembered. */
  initialRemember: boolean;
  pending: boolean;
  /** The inline message of a failed sign-in. */
  failed: boolean;
  signupHref: string;
  onSubmit: (values: LoginValues) => void;
  onForgotPassword: (username: string) => void;
}

/** Sign-in (spec 1 §2.3): username (the e-mail), password, Remember me, Forgot password, Login. */
export function LoginForm(props: LoginFormProps) {
  const { t } = useTranslation('auth');
  const [username, setUsername] = useState(props.initialUsername);
  const [password, setPassword] = useState('');
  const [remember, setRemember] = useState(props.initialRemember);

  const submit = () => {
    if (props.pending || !username.trim() || !password) return;
    props.onSubmit({ username: username.trim(), password, remember });
  };
  const onFormSubmit = (e: FormEvent) => {
    e.preventDefault();
    submit();
  };
  // Enter or the keypad's Enter in any field submits (spec 1 §2.3); buttons and links keep their own Enter.
  const onKeyDown = (e: KeyboardEvent) => {
    if ((e.key === 'Enter' || e.code === 'NumpadEnter') && e.target instanceof HTMLInputElement) {
      e.preventDefault();
      submit();
    }
  };

  return (
    <Box component="form" noValidate onSubmit={onFormSubmit} onKeyDown={onKeyDown}>
      <Stack spacing={2}>
        <AuthField
          label={t('email')}
          name="username"
          type="email"
          autoComplete="username"
          autoFocus={!props.initialUsername}
          value={username}
          onChange={(e) => setUsername(e.target.value)}
          fullWidth
        />
        <PasswordField
          label={t('password')}
          name="password"
          autoComplete="current-password"
          autoFocus={Boolean(props.initialUsername)}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          fullWidth
        />
        {props.failed && (
          <Alert severity="error" variant="outlined" role="alert">
            {t('invalidCredential')}
          </Alert>
        )}
        <Stack
          direction="row"
          sx={{ justifyContent: 'space-between', alignItems: 'center', flexWrap: 'wrap', columnGap: 2 }}
        >
          <FormControlLabel
            control={<Checkbox checked={remember} onChange={(e) => setRemember(e.target.checked)} />}
            label={t('rememberMe')}
          />
          <Link component="button" type="button" onClick={() => props.onForgotPassword(username.trim())}>
            {t('forgotPassword')}
          </Link>
        </Stack>
        <SubmitButton pending={props.pending}>{t('login')}</SubmitButton>
        <Typography variant="body2" sx={{ textAlign: 'center' }}>
          {t('noAccount')}{' '}
          <Link component={RouterLink} to={props.signupHref}>
            {t('signUp')}
          </Link>
        </Typography>
      </Stack>
    </Box>
  );
}
