import { describe, expect, it } from 'vitest';
import en from '../../i18n/locales/en/settings.json';
import fr from '../../i18n/locales/fr/settings.json';
import it_ from '../../i18n/locales/it/settings.json';

const flatten = (value: unknown, prefix = ''): Record<string, string> =>
  Object.entries(value as Record<string, unknown>).reduce<Record<string, string>>(
    (all, [key, v]) =>
      typeof v === 'string' ? { ...all, [prefix + key]: v } : { ...all, ...flatten(v, `${prefix}${key}.`) },
    {},
  );
const english = flatten(en);
// Words that are the same in the language named (technical terms, product words).
const SAME: Record<string, Set<string>> = {
  it: new Set([
    'uid',
    'email',
    'columns.uid',
    'columns.email',
    'registry',
    'clusters.scheduler.title',
    'clusters.scheduler.round_robin',
  ]),
  fr: new Set(['uid', 'email', 'columns.uid', 'columns.email', 'actions', 'columns.actions']),
};

describe('settings dictionaries', () => {
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
});

// Every key the settings screens name literally (t('groups.create'), t(x ? 'a.b' : 'a.c')) is
// in the English dictionary, so no screen shows a dictionary key instead of words.
const sources = import.meta.glob<string>(['./**/*.{ts,tsx}', '!./**/*.test.{ts,tsx}'], {
  query: '?raw',
  import: 'default',
  eager: true,
});

describe('settings screens', () => {
  it('name only keys the English dictionary has', () => {
    const sections = new Set(Object.keys(en));
    const used = new Set(
      Object.values(sources).flatMap((text) =>
        [...text.matchAll(/'([a-z][a-zA-Z]*(?:\.[a-zA-Z_]+)+)'/g)]
          .map((m) => m[1]!)
          .filter((key) => sections.has(key.split('.')[0]!)),
      ),
    );
    expect(used.size).toBeGreaterThan(100);
    expect([...used].filter((key) => !(key in english))).toEqual([]);
  });
});
