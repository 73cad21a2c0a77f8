import {
  Autocomplete,
  Chip,
  FormControl,
  FormControlLabel,
  InputLabel,
  MenuItem,
  Paper,
  Select,
  Stack,
  Switch,
  TextField,
  Typography,
} from '@mui/material';
import { useTranslation } from 'react-i18next';
import { normaliseEmails, type SessionForm } from './form';

export interface ClusterOption {
  uuid: string;
  label?: string;
  name?: string;
}

/** Preferences (spec 2 §2): restarts, notification e-mails, admins to notify, one cluster manager. */
export function PreferencesPanel({
  form,
  contacts,
  clusters,
  onChange,
}: {
  form: SessionForm;
  contacts: string[];
  clusters: ClusterOption[] | undefined;
  onChange: (patch: Partial<SessionForm>) => void;
}) {
  const { t } = useTranslation('sessions');
  const suggestions = normaliseEmails(contacts).filter((c) => !form.emails.includes(c));
  return (
    <Paper variant="outlined" sx={{ p: 2 }}>
      <Typography variant="subtitle1" component="h2" gutterBottom>
        {t('form.preferences')}
      </Typography>
      <Stack spacing={1.5}>
        <Stack direction="row" spacing={2} sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
          <FormControlLabel
            control={
              <Switch
                checked={form.restartOnFail}
                onChange={(e) => onChange({ restartOnFail: e.target.checked })}
              />
            }
            label={t('form.restartOnFail')}
          />
          {form.restartOnFail && (
            <TextField
              size="small"
              type="number"
              label={t('form.numberOfTimes')}
              value={form.restarts}
              onChange={(e) => onChange({ restarts: Math.max(1, Math.floor(Number(e.target.value) || 1)) })}
              slotProps={{ htmlInput: { min: 1, step: 1 } }}
              sx={{ width: 150 }}
            />
          )}
        </Stack>
        <FormControlLabel
          control={<Switch checked={form.notify} onChange={(e) => onChange({ notify: e.target.checked })} />}
          label={t('form.notification')}
        />
        {form.notify && (
          <Autocomplete
            multiple
            freeSolo
            options={suggestions}
            value={form.emails}
            onChange={(_e, value) => onChange({ emails: normaliseEmails(value) })}
            renderValue={(value, getItemProps) =>
              value.map((email, index) => {
                const { key, ...props } = getItemProps({ index });
                return <Chip key={key} size="small" label={email} {...props} />;
              })
            }
            renderInput={(params) => (
              <TextField
                {...params}
                size="small"
                label={t('form.emails')}
                helperText={t('form.emailsHelp')}
              />
            )}
          />
        )}
        <FormControlLabel
          control={
            <Switch
              checked={form.notifyGroup}
              onChange={(e) => onChange({ notifyGroup: e.target.checked })}
            />
          }
          label={t('form.notifyGroup')}
        />
        <FormControlLabel
          control={
            <Switch
              checked={form.notifyOrganization}
              onChange={(e) => onChange({ notifyOrganization: e.target.checked })}
            />
          }
          label={t('form.notifyOrganization')}
        />
        <FormControl size="small" sx={{ maxWidth: 360 }} disabled={!clusters?.length}>
          <InputLabel id="session-cluster">{t('form.cluster')}</InputLabel>
          <Select
            labelId="session-cluster"
            label={t('form.cluster')}
            value={clusters?.some((c) => c.uuid === form.cluster) ? form.cluster : ''}
            onChange={(e) => onChange({ cluster: e.target.value })}
          >
            <MenuItem value="">{t('form.anyCluster')}</MenuItem>
            {(clusters ?? []).map((c) => (
              <MenuItem key={c.uuid} value={c.uuid}>
                {c.label || c.name || c.uuid}
              </MenuItem>
            ))}
          </Select>
        </FormControl>
      </Stack>
    </Paper>
  );
}
