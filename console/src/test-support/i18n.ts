// The dictionaries' completeness checks each feature's *-i18n.test.ts runs on its namespace.
import { expect } from 'vitest';
import i18n, { LANGUAGES } from '../i18n';

/** The languages the console translates English into. */
export const TRANSLATIONS = LANGUAGES.filter((language) => language !== 'en');

// Only English ships with the i18n module; the checks below read the translations' dictionaries.
await i18n.loadLanguages(TRANSLATIONS);

/** A dictionary's strings by their dotted keys ('columns.name'). */
export const flatten = (value: unknown, prefix = ''): Record<string, string> =>
  Object.entries(value as Record<string, unknown>).reduce<Record<string, string>>(
    (all, [key, v]) =>
      typeof v === 'string' ? { ...all, [prefix + key]: v } : { ...all, ...flatten(v, `${prefix}${key}.`) },
    {},
  );

const dictionary = (language: string, namespace: string) => {
  const bundle: unknown = i18n.getResourceBundle(language, namespace);
  expect(bundle, `${language}/${namespace}.json`).toBeTruthy();
  return flatten(bundle);
};

/** i18next's plural suffixes (CLDR categories): `x_one` → base `x`. */
const PLURAL = /^(.+)_(zero|one|two|few|many|other)$/;

const placeholders = (text: string) => [...text.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]).sort();

/**
 * `language`'s dictionary of `namespace` has exactly the English keys (plus the plural forms
 * English does not have), each translated (but the
 * `same` ones, words the language keeps: technical terms, units, product words), with the
 * English text's {{placeholders}}.
 */
export function expectLocalesComplete(namespace: string, language: string, same: Iterable<string> = []) {
  const english = dictionary('en', namespace);
  const translated = dictionary(language, namespace);
  const kept = new Set(same);
  // A language may have plural categories English lacks (fr, it: `_many`), never other keys.
  const plurals = new Set(Object.keys(english).flatMap((key) => PLURAL.exec(key)?.[1] ?? []));
  const extra = (key: string) => !(key in english) && !plurals.has(PLURAL.exec(key)?.[1] ?? '');
  expect(Object.keys(translated).filter(extra)).toEqual([]);
  expect(Object.keys(english).filter((key) => !(key in translated))).toEqual([]);
  const untranslated = Object.keys(english).filter(
    (key) => translated[key] === english[key] && !kept.has(key),
  );
  expect(untranslated).toEqual([]);
  for (const key of Object.keys(english))
    expect([key, placeholders(translated[key]!)]).toEqual([key, placeholders(english[key]!)]);
  // An extra plural form has the placeholders of its English `_other`.
  for (const key of Object.keys(translated).filter((k) => !(k in english))) {
    const other = english[`${PLURAL.exec(key)![1]}_other`];
    if (other !== undefined)
      expect([key, placeholders(translated[key]!)]).toEqual([key, placeholders(other)]);
  }
}

/**
 * Every key the `sources` (a feature's files, raw) name literally — t('groups.create'),
 * t(x ? 'a.b' : 'a.c') — under a section of `namespace`'s English dictionary is in it (a
 * plural's base key counts), so no screen shows a dictionary key instead of words; and there
 * are more than `atLeast` of them (the check finds the keys at all).
 */
export function expectKnownKeys(namespace: string, sources: Record<string, string>, atLeast: number) {
  const english = dictionary('en', namespace);
  const sections = new Set(Object.keys(i18n.getResourceBundle('en', namespace) as object));
  const used = new Set(
    Object.values(sources).flatMap((text) =>
      [...text.matchAll(/'([a-z][a-zA-Z]*(?:\.[a-zA-Z_]+)+)'/g)]
        .map((m) => m[1]!)
        .filter((key) => sections.has(key.split('.')[0]!)),
    ),
  );
  expect(used.size).toBeGreaterThan(atLeast);
  const known = (key: string) => key in english || `${key}_one` in english;
  expect([...used].filter((key) => !known(key))).toEqual([]);
}
