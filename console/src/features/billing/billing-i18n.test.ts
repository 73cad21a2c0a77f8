import { describe, it } from 'vitest';
import { expectLocalesComplete, TRANSLATIONS } from '../../test-support/i18n';

// Words that stay the same in the language named.
const SAME: Record<string, string[]> = {
  it: ['records.columns.sandbox', 'records_one'],
  fr: [
    'total',
    'sessionCount_one',
    'sessionCount_other',
    'sessions.columns.session',
    'records.columns.date',
    'records.columns.session',
    'records.columns.sandbox',
    'records.columns.machine',
  ],
};

describe('billing dictionaries', () => {
  it.each(TRANSLATIONS)('%s has every English key, translated, with the same placeholders', (language) =>
    expectLocalesComplete('billing', language, SAME[language]),
  );
});
