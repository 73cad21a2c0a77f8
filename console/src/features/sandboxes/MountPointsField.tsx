import { Checkbox, Stack, TextField, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';

/** The organization's mount points: ticked ones are mounted, at the destination given (the source by default). */
export function MountPointsField({
  available,
  value,
  readOnly,
  onChange,
}: {
  available: string[];
  value: Record<string, string>;
  readOnly: boolean;
  onChange: (mounts: Record<string, string>) => void;
}) {
  const { t } = useTranslation('sandboxes');
  const toggle = (source: string, checked: boolean) => {
    const { [source]: _dropped, ...rest } = value;
    onChange(checked ? { ...value, [source]: source } : rest);
  };
  return (
    <div>
      <Typography variant="subtitle2" gutterBottom>
        {t('mountPoints')}
      </Typography>
      {available.length === 0 && (
        <Typography variant="body2" color="text.secondary">
          {t('noMountPoints')}
        </Typography>
      )}
      {available.map((source) => (
        <Stack key={source} direction="row" spacing={1} sx={{ alignItems: 'center', mb: 1 }}>
          <Checkbox
            checked={source in value}
            disabled={readOnly}
            onChange={(e) => toggle(source, e.target.checked)}
            slotProps={{ input: { 'aria-label': source } }}
          />
          <Typography sx={{ minWidth: 120, wordBreak: 'break-all' }}>{source}</Typography>
          <TextField
            size="small"
            label={t('destination')}
            value={value[source] ?? ''}
            disabled={readOnly || !(source in value)}
            onChange={(e) => onChange({ ...value, [source]: e.target.value })}
          />
        </Stack>
      ))}
    </div>
  );
}
