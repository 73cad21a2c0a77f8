import { describe, expect, it } from 'vitest';
import en from '../../i18n/locales/en/dashboard.json';
import fr from '../../i18n/locales/fr/dashboard.json';
import it_ from '../../i18n/locales/it/dashboard.json';

const flatten = (value: unknown, prefix = ''): Record<string, string> =>
  Object.entries(value as Record<string, unknown>).reduce<Record<string, string>>(
    (all, [key, v]) =>
      typeof v === 'string' ? { ...all, [prefix + key]: v } : { ...all, ...flatten(v, `${prefix}${key}.`) },
    {},
  );
const english = flatten(en);
// The same word in the language named (technical terms, units, product words).
const SAME: Record<string, Set<string>> = {
  it: new Set(['resources.cpu', 'units.memory', 'units.disk', 'comparison.columns.run']),
  fr: new Set(),
};

describe('dashboard dictionaries', () => {
  it.each([
    ['it', it_],
    ['fr', fr],
  ])('%s has every English key, translated, with the same placeholders', (language, dictionary) => {
    const translated = flatten(dictionary);
    expect(Object.keys(translated).sort()).toEqual(Object.keys(english).sort());
    const untranslated = Object.keys(english).filter(
      (key) => translated[key] === english[key] && !SAME[language]!.has(key),
    );
    expect(untranslated).toEqual([]);
    const placeholders = (text: string) => [...text.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]).sort();
    for (const key of Object.keys(english))
      expect([key, placeholders(translated[key]!)]).toEqual([key, placeholders(english[key]!)]);
  });

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
  it('name only keys the English dictionary has', () => {
    const sections = new Set(Object.keys(en));
    const used = new Set(
      Object.values(sources).flatMap((text) =>
        [...text.matchAll(/'([a-z][a-zA-Z]*(?:\.[a-zA-Z_]+)+)'/g)]
          .map((m) => m[1]!)
          .filter((key) => sections.has(key.split('.')[0]!)),
      ),
    );
    expect(used.size).toBeGreaterThan(30);
    const known = (key: string) => key in english || `${key}_one` in english;
    expect([...used].filter((key) => !known(key))).toEqual([]);
  });
});
