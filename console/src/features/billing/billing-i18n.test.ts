import { describe, expect, it } from 'vitest';
import en from '../../i18n/locales/en/billing.json';
import fr from '../../i18n/locales/fr/billing.json';
import it_ from '../../i18n/locales/it/billing.json';

const flatten = (value: unknown, prefix = ''): Record<string, string> =>
  Object.entries(value as Record<string, unknown>).reduce<Record<string, string>>(
    (all, [key, v]) =>
      typeof v === 'string' ? { ...all, [prefix + key]: v } : { ...all, ...flatten(v, `${prefix}${key}.`) },
    {},
  );
const placeholders = (text: string) => [...text.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]).sort();

// Words that stay the same in the language named.
const SAME = new Set([
  'it:records.columns.sandbox',
  'it:records_one',
  'fr:total',
  'fr:sessionCount_one',
  'fr:sessionCount_other',
  'fr:sessions.columns.session',
  'fr:records.columns.date',
  'fr:records.columns.session',
  'fr:records.columns.sandbox',
  'fr:records.columns.machine',
]);

describe('billing dictionaries', () => {
  it.each([
    ['it', it_],
    ['fr', fr],
  ])('%s has every English key, translated, with the same placeholders', (language, other) => {
    const english = flatten(en);
    const translated = flatten(other);
    expect(Object.keys(translated).sort()).toEqual(Object.keys(english).sort());
    const untranslated = Object.keys(english).filter(
      (key) => translated[key] === english[key] && !SAME.has(`${language}:${key}`),
    );
    expect(untranslated).toEqual([]);
    for (const key of Object.keys(english))
      expect([key, placeholders(translated[key]!)]).toEqual([key, placeholders(english[key]!)]);
  });
});
