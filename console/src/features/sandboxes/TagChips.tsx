import { Chip, Stack } from '@mui/material';
import { DEFAULT_TAG_COLOR } from '../../lib/validation';

/** A sandbox's tag labels in their owner's colours (#dddddd for a label without one). */
export function TagChips({
  labels,
  colors,
  onDelete,
}: {
  labels: string[];
  colors: Map<string, string>;
  onDelete?: (label: string) => void;
}) {
  return (
    <Stack direction="row" spacing={0.5} useFlexGap sx={{ flexWrap: 'wrap' }}>
      {labels.map((label) => {
        const color = colors.get(label) ?? DEFAULT_TAG_COLOR;
        return (
          <Chip
            key={label}
            label={label}
            size="small"
            onDelete={onDelete ? () => onDelete(label) : undefined}
            sx={{ bgcolor: color, color: (theme) => theme.palette.getContrastText(color) }}
          />
        );
      })}
    </Stack>
  );
}
