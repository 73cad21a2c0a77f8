import {
  Box,
  Button,
  FormControl,
  FormControlLabel,
  FormLabel,
  InputLabel,
  MenuItem,
  Paper,
  Radio,
  RadioGroup,
  Select,
  Stack,
  Typography,
} from '@mui/material';
import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { LANGUAGES, setLanguage, type Language } from '../../i18n';

/** Each language is named in itself. */
export const LANGUAGE_NAMES: Record<Language, string> = { en: 'English', it: 'Italiano', fr: 'Français' };

/** The browser's time zone (the console shows times in it). */
export const browserTimeZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/**
 * Preferences tab (spec 1 §2.6): the language applies at once and is stored on this device;
 * the time zone is the browser's and the theme is dark only, so Save stays disabled.
 */
export function PreferencesSection() {
  const { t, i18n } = useTranslation('profile');
  const languageId = useId();
  const zoneId = useId();
  const themeId = useId();
  const language = (LANGUAGES as readonly string[]).includes(i18n.resolvedLanguage ?? '')
    ? (i18n.resolvedLanguage as Language)
    : 'en';
  const zone = browserTimeZone();

  return (
    <Paper variant="outlined" sx={{ p: { xs: 2, sm: 3 } }}>
      <Stack spacing={3} sx={{ maxWidth: 440 }}>
        <FormControl fullWidth>
          <InputLabel id={languageId}>{t('language')}</InputLabel>
          <Select
            labelId={languageId}
            label={t('language')}
            value={language}
            onChange={(e) => void setLanguage(e.target.value as Language)}
            data-testid="language"
          >
            {LANGUAGES.map((code) => (
              <MenuItem key={code} value={code} lang={code}>
                {LANGUAGE_NAMES[code]}
              </MenuItem>
            ))}
          </Select>
        </FormControl>

        <FormControl fullWidth disabled>
          <InputLabel id={zoneId}>{t('timeZone')}</InputLabel>
          <Select labelId={zoneId} label={t('timeZone')} value={zone}>
            <MenuItem value={zone}>{zone}</MenuItem>
          </Select>
        </FormControl>

        <FormControl>
          <FormLabel id={themeId}>{t('theme')}</FormLabel>
          <RadioGroup row aria-labelledby={themeId} value="dark">
            <FormControlLabel value="dark" control={<Radio />} label={t('dark')} />
            <FormControlLabel value="light" control={<Radio />} label={t('light')} disabled />
          </RadioGroup>
        </FormControl>

        <Box>
          <Typography variant="body2" color="text.secondary" sx={{ mb: 1.5 }}>
            {t('preferencesApply')}
          </Typography>
          <Button variant="contained" disabled>
            {t('save', { ns: 'common' })}
          </Button>
        </Box>
      </Stack>
    </Paper>
  );
}
