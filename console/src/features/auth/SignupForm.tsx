import { Alert, Box, Link, Stack, Tab, Tabs, Typography } from '@mui/material';
import { useState, type FormEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink } from 'react-router';
import type { Invitation } from '../../api/answers';
import { isEmail } from '../../lib/validation';
import { AuthField } from './AuthField';
import { NewPasswordFields } from './NewPasswordFields';
import { SubmitButton } from './SubmitButton';

export type SignupTab = 'invitation' | 'organization';

export interface SignupValues {
  first_name: string;
  last_name: string;
  email: string;
  password: string;
  confirm: string;
  tab: SignupTab;
  /** The active tab's value: the invitation code or the new organization's name. */
  tabValue: string;
}

export interface SignupFormProps {
  /** GET /illumina/preferences' allow_new_organization (false when unknown). */
  allowNewOrganization: boolean;
  /** The code of ?invite= (read-only), or ''. */
  inviteCode: string;
  /** GET /invite/{code}: the invitation, null when unknown or without a code. */
  invitation: Invitation | null;
  /** ?user= pre-fills the e-mail. */
  initialEmail: string;
  pending: boolean;
  /** The inline message of a refused registration. */
  failed: boolean;
  onSubmit: (values: SignupValues) => void;
  /** Drops the invitation of the URL, to found a new organization instead. */
  onDropInvitation: () => void;
  /** The bot-check widget, when the platform has one (shown above the button). */
  botCheck?: ReactNode;
  /** A bot check is configured and not solved yet: nothing can be sent. */
  awaitingBotCheck?: boolean;
}

/** Registration (spec 1 §2.4): names, e-mail, passwords, and an invitation or a new organization. */
export function SignupForm(props: SignupFormProps) {
  const { t } = useTranslation('auth');
  const [firstName, setFirstName] = useState('');
  const [lastName, setLastName] = useState('');
  const [typedEmail, setTypedEmail] = useState(props.initialEmail);
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [typedCode, setTypedCode] = useState('');
  const [organization, setOrganization] = useState('');
  const [chosenTab, setChosenTab] = useState<SignupTab | null>(null);

  const fromUrl = props.inviteCode !== '';
  const allowNew = props.allowNewOrganization;
  // An invitation of the URL keeps its tab (leaving it drops the invitation); otherwise a new
  // organization when that is open, until the person picks a tab.
  const tab: SignupTab = fromUrl || !allowNew ? 'invitation' : (chosenTab ?? 'organization');
  const dropInvitation = () => {
    setChosenTab('organization');
    props.onDropInvitation();
  };
  // With an invitation the e-mail is the invited one, not editable.
  const invited = props.invitation;
  const email = invited ? invited.user : typedEmail;
  const code = fromUrl ? props.inviteCode : typedCode;
  const emailInvalid = email !== '' && !isEmail(email);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (props.pending || props.awaitingBotCheck) return;
    props.onSubmit({
      first_name: firstName.trim(),
      last_name: lastName.trim(),
      email: email.trim(),
      password,
      confirm,
      tab,
      tabValue: tab === 'invitation' ? code.trim() : organization.trim(),
    });
  };

  return (
    <Box component="form" noValidate onSubmit={submit}>
      <Stack spacing={2}>
        <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
          <AuthField
            label={t('firstName')}
            name="first_name"
            autoComplete="given-name"
            autoFocus
            value={firstName}
            onChange={(e) => setFirstName(e.target.value)}
            fullWidth
          />
          <AuthField
            label={t('lastName')}
            name="last_name"
            autoComplete="family-name"
            value={lastName}
            onChange={(e) => setLastName(e.target.value)}
            fullWidth
          />
        </Stack>
        <AuthField
          label={t('email')}
          name="email"
          type="email"
          autoComplete="email"
          value={email}
          onChange={(e) => setTypedEmail(e.target.value)}
          error={emailInvalid}
          helperText={emailInvalid ? t('invalidEmail') : undefined}
          readOnly={Boolean(invited)}
          fullWidth
        />
        <NewPasswordFields
          password={password}
          confirm={confirm}
          onPasswordChange={setPassword}
          onConfirmChange={setConfirm}
        />
        <Box>
          <Tabs
            value={tab}
            onChange={(_e, value: SignupTab) =>
              value === 'organization' && fromUrl ? dropInvitation() : setChosenTab(value)
            }
            variant="fullWidth"
          >
            <Tab value="invitation" label={t('invitationTab')} />
            <Tab value="organization" label={t('organizationTab')} disabled={!allowNew} />
          </Tabs>
          <Box sx={{ pt: 2 }}>
            {tab === 'invitation' ? (
              <AuthField
                key="invitation"
                label={t('invitationCode')}
                name="invitation_link"
                placeholder={t('invitationPlaceholder')}
                value={code}
                onChange={(e) => setTypedCode(e.target.value)}
                error={fromUrl && props.invitation === null}
                helperText={fromUrl && props.invitation === null ? t('unknownInvitation') : undefined}
                // The label stays up so the placeholder shows before the field is focused.
                readOnly={fromUrl}
                shrinkLabel
                fullWidth
              />
            ) : (
              <AuthField
                key="organization"
                label={t('organizationName')}
                name="organization"
                placeholder={t('organizationPlaceholder')}
                shrinkLabel
                value={organization}
                onChange={(e) => setOrganization(e.target.value)}
                fullWidth
              />
            )}
            {!allowNew && !fromUrl && (
              <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }}>
                {t('newOrganizationsNotAllowed')}
              </Typography>
            )}
            {fromUrl && allowNew && (
              <Link component="button" type="button" variant="body2" sx={{ mt: 1 }} onClick={dropInvitation}>
                {t('dropInvitation')}
              </Link>
            )}
          </Box>
        </Box>
        {props.botCheck}
        {props.failed && (
          <Alert severity="error" variant="outlined">
            {t('invalidCredential')}
          </Alert>
        )}
        <SubmitButton pending={props.pending} disabled={props.pending || props.awaitingBotCheck === true}>
          {tab === 'invitation' ? t('join') : t('register')}
        </SubmitButton>
        <Typography variant="body2" sx={{ textAlign: 'center' }}>
          {t('haveAccount')}{' '}
          <Link component={RouterLink} to={fromUrl ? `/login?invite=${encodeURIComponent(code)}` : '/login'}>
            {t('login')}
          </Link>
        </Typography>
      </Stack>
    </Box>
  );
}
