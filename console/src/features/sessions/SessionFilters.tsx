import SearchIcon from '@mui/icons-material/Search';
import {
  Box,
  Button,
  FormControlLabel,
  InputAdornment,
  Switch,
  TextField,
  Tooltip,
  Typography,
} from '@mui/material';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink } from 'react-router';

export interface Toggles {
  running: boolean;
  active: boolean;
}

/** Search (the query language of ./query.ts), Running / Active, Create New, Delete Selected. */
export function SessionFilters({
  search,
  errors,
  toggles,
  selected,
  onSearch,
  onToggles,
  onDeleteSelected,
}: {
  search: string;
  errors: string[];
  toggles: Toggles;
  selected: number;
  onSearch: (text: string) => void;
  onToggles: (toggles: Toggles) => void;
  onDeleteSelected: () => void;
}) {
  const { t } = useTranslation('sessions');
  return (
    <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 1.5, alignItems: 'center' }}>
      <Tooltip title={t('searchHelp')} placement="bottom-start">
        <TextField
          size="small"
          value={search}
          onChange={(e) => onSearch(e.target.value)}
          placeholder={t('searchPlaceholder')}
          error={errors.length > 0}
          helperText={errors.length > 0 ? t('searchIgnored', { terms: errors.join(' ') }) : undefined}
          sx={{ flex: '1 1 260px', maxWidth: 520 }}
          slotProps={{
            htmlInput: { 'aria-label': t('search') },
            input: {
              startAdornment: (
                <InputAdornment position="start">
                  <SearchIcon fontSize="small" />
                </InputAdornment>
              ),
            },
          }}
        />
      </Tooltip>
      <FormControlLabel
        control={
          <Switch
            checked={toggles.running}
            onChange={(e) => onToggles({ ...toggles, running: e.target.checked })}
          />
        }
        label={t('running')}
      />
      <FormControlLabel
        control={
          <Switch
            checked={toggles.active}
            onChange={(e) => onToggles({ ...toggles, active: e.target.checked })}
          />
        }
        label={t('active')}
      />
      <Box sx={{ flex: 1 }} />
      {selected > 0 && (
        <Button color="error" variant="outlined" onClick={onDeleteSelected}>
          {t('deleteSelected')}
          <Typography component="span" variant="caption" sx={{ ml: 0.5 }}>
            ({selected})
          </Typography>
        </Button>
      )}
      <Button variant="contained" component={RouterLink} to="/session/create">
        {t('createNew')}
      </Button>
    </Box>
  );
}
