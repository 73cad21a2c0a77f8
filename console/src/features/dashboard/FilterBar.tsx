import RestartAlt from '@mui/icons-material/RestartAlt';
import {
  Button,
  Checkbox,
  FormControl,
  FormHelperText,
  InputLabel,
  ListItemText,
  MenuItem,
  OutlinedInput,
  Paper,
  Select,
} from '@mui/material';
import { useTranslation } from 'react-i18next';
import { DateTimeField } from '../../components/DateTimeField';
import type { FilterProblem, Option, Range } from './shape';

/** Spec 2 §9: the date filter moves in 60-minute steps. */
const HOUR_STEP_MIN = 60;

export interface FilterBarProps {
  options: readonly Option[];
  groups: readonly string[];
  range: Range;
  problem: FilterProblem | null;
  /** Spec 3 §2.1: hidden (kept, with what was typed) while the mobile navigation is open. */
  hidden?: boolean;
  onGroups: (groups: string[]) => void;
  onRange: (range: Range) => void;
  onReset: () => void;
}

/** The group multi-select, the date range and Reset Filters (spec 2 "Statistics", spec 3 §2.1). */
export function FilterBar({
  options,
  groups,
  range,
  problem,
  hidden = false,
  onGroups,
  onRange,
  onReset,
}: FilterBarProps) {
  const { t } = useTranslation('dashboard');
  const names = new Map(options.map((option) => [option.id, option.name]));
  const dateError = problem === 'startAfterEnd' || problem === 'invalidDate';
  return (
    <Paper
      variant="outlined"
      role="search"
      aria-label={t('filters.label')}
      hidden={hidden}
      sx={{
        p: 2,
        display: hidden ? 'none' : 'grid',
        gap: 2,
        gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr', md: 'minmax(220px, 2fr) 1fr 1fr auto' },
        alignItems: 'start',
      }}
    >
      <FormControl size="small" error={problem === 'noGroups'} sx={{ minWidth: 0 }}>
        <InputLabel id="dashboard-groups">{t('filters.groups')}</InputLabel>
        <Select
          labelId="dashboard-groups"
          multiple
          value={[...groups]}
          onChange={(event) => {
            const value = event.target.value;
            onGroups(typeof value === 'string' ? value.split(',') : value);
          }}
          input={<OutlinedInput label={t('filters.groups')} />}
          renderValue={(selected) =>
            selected.length === options.length && options.length > 0
              ? t('filters.allGroups')
              : selected.length > 2
                ? t('filters.groupsSelected', { count: selected.length })
                : selected.map((id) => names.get(id) ?? id).join(', ')
          }
          MenuProps={{ slotProps: { paper: { sx: { maxHeight: 360 } } } }}
        >
          {options.map((option) => (
            <MenuItem key={option.id} value={option.id} dense>
              <Checkbox size="small" checked={groups.includes(option.id)} sx={{ py: 0 }} />
              <ListItemText primary={option.name} />
            </MenuItem>
          ))}
        </Select>
        {problem === 'noGroups' ? <FormHelperText>{t('filters.noGroups')}</FormHelperText> : null}
      </FormControl>
      <DateTimeField
        label={t('filters.start')}
        value={range.start}
        onChange={(start) => onRange({ ...range, start })}
        minutesStep={HOUR_STEP_MIN}
        error={dateError}
        helperText={dateError ? t(`filters.${problem}`) : undefined}
        sx={{ minWidth: 0 }}
      />
      <DateTimeField
        label={t('filters.end')}
        value={range.end}
        onChange={(end) => onRange({ ...range, end })}
        minutesStep={HOUR_STEP_MIN}
        error={dateError}
        sx={{ minWidth: 0 }}
      />
      <Button
        variant="outlined"
        startIcon={<RestartAlt />}
        onClick={onReset}
        sx={{ height: 40, whiteSpace: 'nowrap' }}
      >
        {t('filters.reset')}
      </Button>
    </Paper>
  );
}
