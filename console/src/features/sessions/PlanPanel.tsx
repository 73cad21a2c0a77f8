import AddIcon from '@mui/icons-material/Add';
import DeleteIcon from '@mui/icons-material/Delete';
import {
  Box,
  Button,
  FormControl,
  FormControlLabel,
  IconButton,
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
import { DateTimeField } from '../../components/DateTimeField';
import { newPlan, type PlanForm } from './form';
import { PERIODS, type PeriodicLabel } from './types';

/** Spec 2 §9: start time step 1 minute, until step 5 minutes. */
const START_STEP_MIN = 1;
const UNTIL_STEP_MIN = 5;

function PlanRow({
  plan,
  kind,
  onChange,
  onRemove,
}: {
  plan: PlanForm;
  kind: 'schedule' | 'event';
  onChange: (patch: Partial<PlanForm>) => void;
  onRemove: () => void;
}) {
  const { t } = useTranslation('sessions');
  const date = (label: string, value: string, step: number, change: (v: string) => void) => (
    <DateTimeField label={label} value={value} onChange={change} minutesStep={step} sx={{ width: 230 }} />
  );
  return (
    <Paper variant="outlined" sx={{ p: 1.5 }} data-testid={`${kind}-row`}>
      <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap', alignItems: 'center' }}>
        {kind === 'schedule' ? (
          date(t('form.time'), plan.time, START_STEP_MIN, (time) => onChange({ time }))
        ) : (
          <>
            <TextField
              size="small"
              label={t('form.url')}
              value={plan.url}
              onChange={(e) => onChange({ url: e.target.value })}
              sx={{ flex: '2 1 220px' }}
            />
            <TextField
              size="small"
              label={t('form.expect')}
              helperText={t('form.expectHelp')}
              value={plan.expect}
              onChange={(e) => onChange({ expect: e.target.value })}
              sx={{ flex: '1 1 160px' }}
            />
          </>
        )}
        <FormControlLabel
          control={
            <Switch checked={plan.periodic} onChange={(e) => onChange({ periodic: e.target.checked })} />
          }
          label={t('form.periodic')}
        />
        <Box sx={{ flex: 1 }} />
        <IconButton aria-label={t('form.removePlan')} onClick={onRemove}>
          <DeleteIcon fontSize="small" />
        </IconButton>
      </Box>
      {plan.periodic && (
        <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap', alignItems: 'center', mt: 1 }}>
          <FormControl size="small" sx={{ width: 150 }}>
            <InputLabel id={`period-${kind}`}>{t('form.period')}</InputLabel>
            <Select
              labelId={`period-${kind}`}
              label={t('form.period')}
              value={plan.periodicLabel}
              onChange={(e) => onChange({ periodicLabel: e.target.value as PeriodicLabel })}
            >
              {PERIODS.map((p) => (
                <MenuItem key={p} value={p}>
                  {t(`periods.${p}`)}
                </MenuItem>
              ))}
            </Select>
          </FormControl>
          <TextField
            size="small"
            type="number"
            label={t('form.every')}
            value={plan.periodicValue}
            onChange={(e) => onChange({ periodicValue: e.target.value })}
            slotProps={{ htmlInput: { min: 0, step: 1 } }}
            sx={{ width: 110 }}
          />
          <FormControlLabel
            control={
              <Switch checked={plan.isUntil} onChange={(e) => onChange({ isUntil: e.target.checked })} />
            }
            label={t('form.until')}
          />
          {plan.isUntil && date(t('form.until'), plan.until, UNTIL_STEP_MIN, (until) => onChange({ until }))}
        </Box>
      )}
    </Paper>
  );
}

/** Session plan (spec 2 §2): the schedules, or the events, of the chosen type. */
export function PlanPanel({
  kind,
  plans,
  webhook,
  onPlans,
}: {
  kind: 'schedule' | 'event';
  plans: PlanForm[];
  webhook?: React.ReactNode;
  onPlans: (next: PlanForm[]) => void;
}) {
  const { t } = useTranslation('sessions');
  return (
    <Paper variant="outlined" sx={{ p: 2 }}>
      <Typography variant="subtitle1" component="h2" gutterBottom>
        {t('form.plan')}
      </Typography>
      <Stack spacing={1}>
        {plans.length === 0 && (
          <Typography variant="body2" color="text.secondary">
            {t(kind === 'schedule' ? 'form.noSchedule' : 'form.noEvent')}
          </Typography>
        )}
        {plans.map((plan, i) => (
          <PlanRow
            key={i}
            plan={plan}
            kind={kind}
            onChange={(patch) => onPlans(plans.map((p, j) => (j === i ? { ...p, ...patch } : p)))}
            onRemove={() => onPlans(plans.filter((_p, j) => j !== i))}
          />
        ))}
        <Box>
          <Button startIcon={<AddIcon />} onClick={() => onPlans([...plans, newPlan()])}>
            {t(kind === 'schedule' ? 'form.addSchedule' : 'form.addEvent')}
          </Button>
        </Box>
        {webhook}
      </Stack>
    </Paper>
  );
}
