import { AdapterDayjs } from '@mui/x-date-pickers/AdapterDayjs';
import { LocalizationProvider } from '@mui/x-date-pickers/LocalizationProvider';
import { enUS, frFR, itIT } from '@mui/x-date-pickers/locales';
import 'dayjs/locale/fr';
import 'dayjs/locale/it';
import type { ReactNode } from 'react';

const PICKER_LOCALES = { en: enUS, it: itIT, fr: frFR } as const;

/**
 * The date pickers' dayjs adapter, with MUI X's own texts (Cancel, OK, "Select date", the aria
 * labels) and dayjs' month and day names in the person's language, as themeFor does for MUI's
 * own texts; English for a language we do not ship.
 */
export function DateLocalization({ language, children }: { language: string; children: ReactNode }) {
  const code = (
    language.slice(0, 2) in PICKER_LOCALES ? language.slice(0, 2) : 'en'
  ) as keyof typeof PICKER_LOCALES;
  return (
    <LocalizationProvider
      dateAdapter={AdapterDayjs}
      adapterLocale={code}
      localeText={PICKER_LOCALES[code].components.MuiLocalizationProvider.defaultProps.localeText}
    >
      {children}
    </LocalizationProvider>
  );
}
