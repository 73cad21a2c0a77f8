import { Box, Slider, Stack, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { FIXED_STEPS, quotaTicks, RESOURCES, type Resource } from '../quota';
import type { Resources } from '../types';

/**
 * Three sliders (CPU cores, memory GB, disk GB, or percentages) from 0 to their maximum with
 * the given steps; ticks at 25/50/75 % when `ticks`. A null maximum (unknown capacity) lets
 * the slider go to `fallbackMax`.
 */
export function QuotaSliders({
  values,
  maxima,
  steps = FIXED_STEPS,
  percentage = false,
  ticks = false,
  fallbackMax = 64,
  onChange,
}: {
  values: Resources;
  maxima: Resources | null;
  steps?: Resources;
  percentage?: boolean;
  ticks?: boolean;
  fallbackMax?: number;
  onChange: (values: Resources) => void;
}) {
  const { t } = useTranslation('settings');
  const unit = (r: Resource) => (percentage ? '%' : t(r === 'cpu' ? 'units.cores' : 'units.gb'));
  return (
    <Stack spacing={1}>
      {RESOURCES.map((r) => {
        const max = maxima ? maxima[r] : Math.max(fallbackMax, values[r]);
        return (
          <Box key={r}>
            <Typography variant="body2" id={`quota-${r}`}>
              {t(`quota.${r}`)}: {values[r]} {unit(r)}{' '}
              <Typography component="span" variant="caption" color="text.secondary">
                ({t('quota.max', { max, unit: unit(r) })})
              </Typography>
            </Typography>
            <Slider
              aria-labelledby={`quota-${r}`}
              value={Math.min(values[r], max)}
              min={0}
              max={max}
              step={steps[r]}
              marks={ticks && max > 0 ? quotaTicks(max) : false}
              disabled={max <= 0}
              valueLabelDisplay="auto"
              onChange={(_e, value) => onChange({ ...values, [r]: value as number })}
            />
          </Box>
        );
      })}
    </Stack>
  );
}
