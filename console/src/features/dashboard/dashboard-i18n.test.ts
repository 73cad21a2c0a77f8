import { describe, expect, it } from 'vitest';
import en from '../../i18n/locales/en/dashboard.json';
import { expectKnownKeys, expectLocalesComplete, TRANSLATIONS } from '../../test-support/i18n';

// The same word in the language named (technical terms, units, product words).
const SAME: Record<string, string[]> = {
  it: ['resources.cpu', 'units.memory', 'units.disk', 'comparison.columns.run'],
  fr: [],
};

describe('dashboard dictionaries', () => {
  it.each(TRANSLATIONS)('%s has every English key, translated, with the same placeholders', (language) =>
    expectLocalesComplete('dashboard', language, SAME[language]),
  );

  it("keeps spec 3 §8's chart messages word for word in English", () => {
    expect(en.states).toMatchObject({
      error: 'Something went wrong, we have no data to display',
      errorHint: 'Check your internet connection',
      noData: 'Ops, seems you have not enough Runs to display charts',
      noDataHint: 'Try running a session',
      noFilter: 'Ops, seems you have no filter options selected',
      noFilterHint: 'Select an option from filter bar',
      noRuns: 'Ops, seems you have no Runs selected',
      noRunsHint: 'Select a Run from Session selection',
      noTableData: 'No data to show',
    });
    expect(en.comparison).toMatchObject({ loadingRuns: 'Loading runs', noRun: 'No run found' });
  });
});

// Every key the dashboard names literally is in the English dictionary.
const sources = import.meta.glob<string>(['./**/*.{ts,tsx}', '!./**/*.test.{ts,tsx}'], {
  query: '?raw',
  import: 'default',
  eager: true,
});

describe('dashboard screens', () => {
  it('name only keys the English dictionary has', () => expectKnownKeys('dashboard', sources, 30));
});
