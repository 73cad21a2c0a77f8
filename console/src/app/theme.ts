import { enUS, frFR, itIT } from '@mui/material/locale';
import { createTheme, type Theme } from '@mui/material/styles';

/** Dark only: the spec offers light but keeps it disabled (spec 1 §2.6). */
export const theme = createTheme({
  palette: {
    mode: 'dark',
    primary: { main: '#f4b860' },
    secondary: { main: '#7cc6fe' },
    background: { default: '#121212', paper: '#1b1b1f' },
  },
  breakpoints: {
    // The mobile layout applies at 574 px or less (spec 1 §1): `sm` starts at 575.
    values: { xs: 0, sm: 575, md: 900, lg: 1200, xl: 1536 },
  },
  shape: { borderRadius: 8 },
});

/** Media query of the mobile layout. */
export const MOBILE_QUERY = '(max-width:574px)';

const MUI_LOCALES = { en: enUS, it: itIT, fr: frFR } as const;
const localized = new Map<string, Theme>();

/**
 * The theme with MUI's own texts (a table's paging, an autocomplete's "No options", the aria
 * labels of its buttons) in the person's language; English for a language we do not ship.
 */
export function themeFor(language: string): Theme {
  const code = (
    language.slice(0, 2) in MUI_LOCALES ? language.slice(0, 2) : 'en'
  ) as keyof typeof MUI_LOCALES;
  let found = localized.get(code);
  if (!found) localized.set(code, (found = createTheme(theme, MUI_LOCALES[code])));
  return found;
}
