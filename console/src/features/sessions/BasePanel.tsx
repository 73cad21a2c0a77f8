import {
  FormControl,
  FormControlLabel,
  FormLabel,
  InputLabel,
  MenuItem,
  Paper,
  Radio,
  RadioGroup,
  Select,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import { useTranslation } from 'react-i18next';
import type { SessionForm } from './form';
import type { SessionWorkflow } from './types';

/** Session base (spec 2 §2): name, workflow (locked when editing; invalid ones not selectable), group, type. */
export function BasePanel({
  form,
  editing,
  workflows,
  groups,
  onChange,
}: {
  form: SessionForm;
  editing: boolean;
  workflows: SessionWorkflow[];
  groups: { id: string; name: string }[];
  onChange: (patch: Partial<SessionForm>) => void;
}) {
  const { t } = useTranslation('sessions');
  return (
    <Paper variant="outlined" sx={{ p: 2 }}>
      <Typography variant="subtitle1" component="h2" gutterBottom>
        {t('form.base')}
      </Typography>
      <Stack spacing={2}>
        <TextField
          label={t('form.name')}
          value={form.name}
          required
          onChange={(e) => onChange({ name: e.target.value })}
          size="small"
        />
        <FormControl size="small" required disabled={editing}>
          <InputLabel id="session-workflow">{t('form.workflow')}</InputLabel>
          <Select
            labelId="session-workflow"
            label={t('form.workflow')}
            value={workflows.some((w) => w.uuid === form.workflow_uuid) ? form.workflow_uuid : ''}
            onChange={(e) => onChange({ workflow_uuid: e.target.value })}
          >
            {workflows.map((w) => (
              <MenuItem key={w.uuid} value={w.uuid} disabled={w.valid === false}>
                {w.name} · {w.version}
                {w.valid === false && ` (${t('form.invalidWorkflow')})`}
              </MenuItem>
            ))}
          </Select>
        </FormControl>
        <FormControl size="small" required>
          <InputLabel id="session-group">{t('form.group')}</InputLabel>
          <Select
            labelId="session-group"
            label={t('form.group')}
            value={groups.some((g) => g.id === form.group) ? form.group : ''}
            onChange={(e) => onChange({ group: e.target.value })}
          >
            {groups.map((g) => (
              <MenuItem key={g.id} value={g.id}>
                {g.name}
              </MenuItem>
            ))}
          </Select>
        </FormControl>
        <FormControl>
          <FormLabel id="session-type">{t('form.type')}</FormLabel>
          <RadioGroup
            row
            aria-labelledby="session-type"
            value={form.type}
            onChange={(e) => onChange({ type: e.target.value as SessionForm['type'] })}
          >
            <FormControlLabel
              value="schedule"
              control={<Radio />}
              label={t('form.schedule')}
              disabled={editing}
            />
            <FormControlLabel value="event" control={<Radio />} label={t('form.event')} disabled={editing} />
          </RadioGroup>
        </FormControl>
      </Stack>
    </Paper>
  );
}
