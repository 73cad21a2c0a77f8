import { FormControlLabel, Radio, RadioGroup, TextField } from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../../api/client';
import { toastFailure, toastSuccess } from '../../toasts/outcome';
import { refusalOf, SettingsForm } from '../common/SettingsForm';
import { useSaveRegistry, type CurrentOrganization, type RegistryBody } from './queries';

type Field = 'url' | 'username' | 'password';

/** The field an API message names (`registry.url: …`), if any. */
export function registryField(message: string): Field | null {
  const match = /^registry\.(url|username|password)\b/.exec(message);
  return (match?.[1] as Field | undefined) ?? null;
}

/**
 * Organization Settings › Registry (spec 3 §2.3): the platform registry or a private one with
 * URL, username and password. The stored password is never shown (the API answers '********'):
 * the field starts empty and is sent only when typed, so the stored one stays. Save is
 * disabled while nothing changed; the API's refusal is shown by its field, else as a toast.
 */
export function RegistryForm({
  organization,
  registry,
}: {
  organization: string;
  registry: CurrentOrganization['registry'];
}) {
  const { t } = useTranslation('settings');
  const save = useSaveRegistry();
  const [custom, setCustom] = useState(registry.use_custom);
  const [url, setUrl] = useState(registry.url ?? '');
  const [username, setUsername] = useState(registry.username ?? '');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<{ field: Field | null; message: string } | null>(null);
  const stored = Boolean(registry.password);

  const changed =
    custom !== registry.use_custom ||
    (custom && (url !== (registry.url ?? '') || username !== (registry.username ?? '') || password !== ''));

  const submit = () => {
    setError(null);
    const body: RegistryBody = custom
      ? { use_custom: true, url: url.trim(), username: username.trim(), ...(password ? { password } : {}) }
      : { use_custom: false };
    save.mutate(
      { organization, registry: body },
      {
        onSuccess: () => {
          setPassword('');
          toastSuccess(t('registry.saved'));
        },
        onError: (e) => {
          const field = registryField(e instanceof ApiError ? e.message : '');
          const message = refusalOf(e);
          if (message) setError({ field, message });
          if (!field) toastFailure(e);
        },
      },
    );
  };
  const fieldError = (field: Field) => (error?.field === field ? error.message : undefined);

  return (
    <SettingsForm
      maxWidth={560}
      explain={t('registry.explain')}
      error={error && !error.field ? error.message : null}
      changed={changed}
      saving={save.isPending}
      onSave={submit}
    >
      <RadioGroup
        aria-label={t('registry.choice')}
        value={custom ? 'private' : 'platform'}
        onChange={(e) => setCustom(e.target.value === 'private')}
      >
        <FormControlLabel value="platform" control={<Radio />} label={t('registry.platform')} />
        <FormControlLabel value="private" control={<Radio />} label={t('registry.private')} />
      </RadioGroup>
      {custom && (
        <>
          <TextField
            label={t('registry.url')}
            placeholder="https://registry.example.org"
            value={url}
            onChange={(e) => setUrl(e.target.value)}
            error={Boolean(fieldError('url'))}
            helperText={fieldError('url')}
          />
          <TextField
            label={t('registry.username')}
            value={username}
            autoComplete="off"
            onChange={(e) => setUsername(e.target.value)}
            error={Boolean(fieldError('username'))}
            helperText={fieldError('username')}
          />
          <TextField
            label={t('registry.password')}
            type="password"
            autoComplete="new-password"
            value={password}
            placeholder={stored ? '********' : ''}
            onChange={(e) => setPassword(e.target.value)}
            error={Boolean(fieldError('password'))}
            helperText={fieldError('password') ?? (stored ? t('registry.passwordKept') : undefined)}
            slotProps={{ inputLabel: stored ? { shrink: true } : undefined }}
          />
        </>
      )}
    </SettingsForm>
  );
}
