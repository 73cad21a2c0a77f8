import { describe, it } from 'vitest';
import { expectKnownKeys, expectLocalesComplete, TRANSLATIONS } from '../../test-support/i18n';

// Words that are the same in the language named (technical terms, product words).
const SAME: Record<string, string[]> = {
  it: [
    'uid',
    'email',
    'columns.uid',
    'columns.email',
    'registry',
    'clusters.scheduler.title',
    'clusters.scheduler.round_robin',
  ],
  fr: ['uid', 'email', 'columns.uid', 'columns.email', 'actions', 'columns.actions'],
};

describe('settings dictionaries', () => {
  it.each(TRANSLATIONS)('%s has every English key, translated, with the same placeholders', (language) =>
    expectLocalesComplete('settings', language, SAME[language]),
  );
});

// Every key the settings screens name literally (t('groups.create'), t(x ? 'a.b' : 'a.c')) is
// in the English dictionary, so no screen shows a dictionary key instead of words.
const sources = import.meta.glob<string>(['./**/*.{ts,tsx}', '!./**/*.test.{ts,tsx}'], {
  query: '?raw',
  import: 'default',
  eager: true,
});

describe('settings screens', () => {
  it('name only keys the English dictionary has', () => expectKnownKeys('settings', sources, 100));
});
