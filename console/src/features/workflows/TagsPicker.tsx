import { Autocomplete, Chip, TextField } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { DEFAULT_TAG_COLOR } from '../../lib/validation';

/** The workflow's tags, chosen among the person's tags (created on the sandbox pages), in their colours. */
export function TagsPicker({
  value,
  known,
  readOnly,
  onChange,
}: {
  value: string[];
  known: { label: string; color: string }[];
  readOnly: boolean;
  onChange: (tags: string[]) => void;
}) {
  const { t } = useTranslation('workflows');
  const colors = new Map(known.map((tag) => [tag.label, tag.color]));
  return (
    <Autocomplete
      multiple
      size="small"
      disabled={readOnly}
      options={known.map((tag) => tag.label)}
      value={value}
      onChange={(_e, next) => onChange(next)}
      renderValue={(labels, getItemProps) =>
        labels.map((label, index) => {
          const color = colors.get(label) ?? DEFAULT_TAG_COLOR;
          const { key, ...props } = getItemProps({ index });
          return (
            <Chip
              key={key}
              {...props}
              size="small"
              label={label}
              sx={{ bgcolor: color, color: (theme) => theme.palette.getContrastText(color) }}
            />
          );
        })
      }
      renderInput={(params) => <TextField {...params} label={t('tags')} />}
      sx={{ minWidth: 200, maxWidth: 360 }}
    />
  );
}
