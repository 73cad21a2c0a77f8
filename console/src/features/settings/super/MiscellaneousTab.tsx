import { Button, Checkbox, FormControlLabel, Stack, Switch, TextField, Typography } from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { toastFailure, toastSuccess } from '../../toasts/outcome';
import { Loaded } from '../common/Loaded';
import { useConfiguration, useSaveConfiguration, type ConfigurationBody } from '../queries';
import type { PlatformConfiguration } from '../types';

/** What the form sends: every field but the password, which only when one is typed. */
export function configurationBody(form: {
  allow: boolean;
  disable: boolean;
  url: string;
  username: string;
  password: string;
}): ConfigurationBody {
  return {
    allow_new_organization: form.allow,
    disable_provisioning: form.disable,
    registry: {
      url: form.url.trim(),
      username: form.username.trim(),
      ...(form.password ? { password: form.password } : {}),
    },
  };
}

function MiscellaneousForm({ saved }: { saved: PlatformConfiguration }) {
  const { t } = useTranslation('settings');
  const save = useSaveConfiguration();
  const [allow, setAllow] = useState(saved.allow_new_organization);
  const [disable, setDisable] = useState(saved.disable_provisioning);
  const [url, setUrl] = useState(saved.registry.url);
  const [username, setUsername] = useState(saved.registry.username);
  const [password, setPassword] = useState('');
  const changed =
    allow !== saved.allow_new_organization ||
    disable !== saved.disable_provisioning ||
    url.trim() !== saved.registry.url ||
    username.trim() !== saved.registry.username ||
    password !== '';

  const submit = () =>
    save.mutate(configurationBody({ allow, disable, url, username, password }), {
      onSuccess: () => {
        setPassword('');
        toastSuccess(t('miscellaneous.saved'));
      },
      onError: (e) => toastFailure(e),
    });

  return (
    <Stack spacing={2} sx={{ maxWidth: 560 }}>
      <FormControlLabel
        control={<Checkbox checked={allow} onChange={(e) => setAllow(e.target.checked)} />}
        label={t('miscellaneous.allowNewOrganization')}
      />
      <Typography variant="subtitle2">{t('miscellaneous.registry')}</Typography>
      <TextField label={t('registry.url')} value={url} onChange={(e) => setUrl(e.target.value)} />
      <TextField
        label={t('registry.username')}
        value={username}
        onChange={(e) => setUsername(e.target.value)}
      />
      <TextField
        label={t('registry.password')}
        type="password"
        value={password}
        autoComplete="new-password"
        onChange={(e) => setPassword(e.target.value)}
        helperText={saved.registry.password ? t('registry.passwordKept') : undefined}
      />
      <FormControlLabel
        control={<Switch checked={disable} onChange={(e) => setDisable(e.target.checked)} />}
        label={t('miscellaneous.disableProvisioning')}
      />
      <Stack direction="row">
        <Button variant="contained" disabled={!changed || save.isPending} onClick={submit}>
          {t('save', { ns: 'common' })}
        </Button>
      </Stack>
    </Stack>
  );
}

/**
 * Super Settings › Miscellaneous (spec 3 §2.5): Allow new organization, the default registry
 * (URL, username, a write-only password) and 'Disable the provisioning for all the
 * organizations'. Save is enabled when something changed.
 */
export default function MiscellaneousTab() {
  const configuration = useConfiguration();
  return (
    <Loaded queries={[configuration]}>
      {/* Keyed by the saved values: a refresh that brings other values starts the form again. */}
      {() => <MiscellaneousForm key={JSON.stringify(configuration.data)} saved={configuration.data!} />}
    </Loaded>
  );
}
