import { Checkbox, FormControlLabel, FormGroup, MenuItem, Stack, TextField, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import type { Visibility, VisibilityType } from '../types';

/**
 * Private, public or group; with group, some of the person's own groups. Every change, each
 * group ticked or unticked included, is saved at once (spec 2 §2, §4).
 */
export function VisibilityControl({
  value,
  groups,
  disabled,
  onChange,
}: {
  value: Visibility;
  groups: { id: string; name: string }[];
  disabled: boolean;
  onChange: (visibility: Visibility) => void;
}) {
  const { t } = useTranslation('workflows');
  const toggle = (id: string) =>
    onChange({
      type: 'group',
      groups: value.groups.includes(id) ? value.groups.filter((g) => g !== id) : [...value.groups, id],
    });
  return (
    <Stack spacing={1}>
      <TextField
        select
        size="small"
        label={t('visibility')}
        value={value.type}
        disabled={disabled}
        onChange={(e) => {
          const type = e.target.value as VisibilityType;
          onChange({ type, groups: type === 'group' ? value.groups : [] });
        }}
        sx={{ maxWidth: 200 }}
      >
        <MenuItem value="private">{t('private')}</MenuItem>
        <MenuItem value="public">{t('public')}</MenuItem>
        <MenuItem value="group">{t('group')}</MenuItem>
      </TextField>
      {value.type === 'group' && (
        <FormGroup aria-label={t('groups')}>
          {groups.length === 0 && <Typography color="text.secondary">{t('noGroups')}</Typography>}
          {groups.map((group) => (
            <FormControlLabel
              key={group.id}
              label={group.name}
              control={
                <Checkbox
                  size="small"
                  disabled={disabled}
                  checked={value.groups.includes(group.id)}
                  onChange={() => toggle(group.id)}
                />
              }
            />
          ))}
        </FormGroup>
      )}
    </Stack>
  );
}
