import { describe, expect, it } from 'vitest';
import { themeFor } from './theme';

describe('themeFor', () => {
  it.each([
    // MUI's defaults are English already: its enUS locale sets nothing.
    ['en', undefined],
    ['it', 'Righe per pagina:'],
    ['fr', 'Lignes par page :'],
    ['fr-CA', 'Lignes par page :'],
    ['de', undefined],
  ])('gives MUI its own texts in %s', (language, perPage) => {
    const theme = themeFor(language);
    expect(theme.components?.MuiTablePagination?.defaultProps?.labelRowsPerPage).toBe(perPage);
    expect(theme.palette.mode).toBe('dark');
  });

  it('builds each language once', () => {
    expect(themeFor('it')).toBe(themeFor('it'));
  });
});
