import AddIcon from '@mui/icons-material/Add';
import CheckIcon from '@mui/icons-material/Check';
import { Box, Button, ButtonBase, MenuItem, Stack, TextField, Typography } from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DEFAULT_TAG_COLOR, tagProblem } from '../../lib/validation';
import { toastFailure } from '../toasts/outcome';
import { toasts } from '../toasts/toast-store';
import { useAddTag } from './queries';
import { TagChips } from './TagChips';

/** The ten colours a new tag can take; the first is the default (spec 1 §3). */
export const TAG_SWATCHES = [
  DEFAULT_TAG_COLOR,
  '#f44336',
  '#ff9800',
  '#ffeb3b',
  '#4caf50',
  '#009688',
  '#03a9f4',
  '#3f51b5',
  '#9c27b0',
  '#795548',
];

/** The sandbox's tags: chosen from the person's tags, or a new one with a label and a swatch. */
export function TagsField({
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
  const { t } = useTranslation('sandboxes');
  const colors = new Map(known.map((tag) => [tag.label, tag.color]));
  const available = known.filter((tag) => !value.includes(tag.label));
  return (
    <Box>
      <Typography variant="subtitle2" gutterBottom>
        {t('tags')}
      </Typography>
      <TagChips
        labels={value}
        colors={colors}
        onDelete={readOnly ? undefined : (label) => onChange(value.filter((l) => l !== label))}
      />
      {!readOnly && (
        <Stack spacing={1.5} sx={{ mt: 1.5 }}>
          <TextField
            select
            size="small"
            label={t('tags')}
            value=""
            disabled={available.length === 0}
            onChange={(e) => onChange([...value, e.target.value])}
          >
            {available.map((tag) => (
              <MenuItem key={tag.label} value={tag.label}>
                {tag.label}
              </MenuItem>
            ))}
          </TextField>
          <NewTag known={known} onAdded={(label) => onChange([...value, label])} />
        </Stack>
      )}
    </Box>
  );
}

function NewTag({
  known,
  onAdded,
}: {
  known: { label: string; color: string }[];
  onAdded: (label: string) => void;
}) {
  const { t } = useTranslation('sandboxes');
  const [label, setLabel] = useState('');
  const [color, setColor] = useState(DEFAULT_TAG_COLOR);
  const add = useAddTag();
  const submit = () => {
    const problem = tagProblem({ label, color }, known);
    if (problem) {
      toasts.show({ title: t('newTag'), text: t(problem), type: 'warning' });
      return;
    }
    add.mutate(
      { label: label.trim(), color },
      {
        onSuccess: (tag) => {
          onAdded(tag.label);
          setLabel('');
        },
        onError: (error) => toastFailure(error),
      },
    );
  };
  return (
    <Stack spacing={1}>
      <Stack direction="row" spacing={1}>
        <TextField
          size="small"
          label={t('newTag')}
          value={label}
          onChange={(e) => setLabel(e.target.value)}
        />
        <Button startIcon={<AddIcon />} onClick={submit} disabled={add.isPending}>
          {t('addTag')}
        </Button>
      </Stack>
      <Stack
        direction="row"
        spacing={0.5}
        role="radiogroup"
        aria-label={t('newTag')}
        useFlexGap
        sx={{ flexWrap: 'wrap' }}
      >
        {TAG_SWATCHES.map((swatch) => (
          <ButtonBase
            key={swatch}
            role="radio"
            aria-checked={swatch === color}
            aria-label={t('tagColor', { color: swatch })}
            onClick={() => setColor(swatch)}
            sx={{
              width: 24,
              height: 24,
              borderRadius: '50%',
              bgcolor: swatch,
              border: 2,
              borderColor: swatch === color ? 'common.white' : 'transparent',
            }}
          >
            {swatch === color && <CheckIcon sx={{ fontSize: 14, color: 'common.black' }} />}
          </ButtonBase>
        ))}
      </Stack>
    </Stack>
  );
}
