import { Checkbox, FormControlLabel, InputAdornment, Stack, TextField, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { RESOURCE_INPUTS, type Resource } from './rules';

const UNITS: Record<Resource, 'cores' | 'gb'> = { cpu: 'cores', memory: 'gb', disk: 'gb' };

/** cpu in cores, memory and disk in GB, with the spec's steps and minimums; requires GPU. */
export function HardwareFields({
  resources,
  gpu,
  readOnly,
  onResources,
  onGpu,
}: {
  resources: Record<Resource, number>;
  gpu: boolean;
  readOnly: boolean;
  onResources: (resources: Record<Resource, number>) => void;
  onGpu: (gpu: boolean) => void;
}) {
  const { t } = useTranslation('sandboxes');
  return (
    <div>
      <Typography variant="subtitle2" gutterBottom>
        {t('hardware')}
      </Typography>
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
        {(Object.keys(RESOURCE_INPUTS) as Resource[]).map((resource) => (
          <TextField
            key={resource}
            type="number"
            size="small"
            label={t(resource)}
            value={Number.isNaN(resources[resource]) ? '' : resources[resource]}
            disabled={readOnly}
            error={!(resources[resource] > 0)}
            onChange={(e) =>
              onResources({ ...resources, [resource]: e.target.value === '' ? NaN : Number(e.target.value) })
            }
            slotProps={{
              htmlInput: { ...RESOURCE_INPUTS[resource] },
              input: { endAdornment: <InputAdornment position="end">{t(UNITS[resource])}</InputAdornment> },
            }}
          />
        ))}
      </Stack>
      <FormControlLabel
        control={<Checkbox checked={gpu} disabled={readOnly} onChange={(e) => onGpu(e.target.checked)} />}
        label={t('gpuRequired')}
      />
    </div>
  );
}
