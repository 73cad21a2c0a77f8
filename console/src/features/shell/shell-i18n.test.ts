import { describe, expect, it } from 'vitest';
import en from '../../i18n/locales/en/shell.json';
import fr from '../../i18n/locales/fr/shell.json';
import it_ from '../../i18n/locales/it/shell.json';

const flatten = (value: unknown, prefix = ''): Record<string, string> =>
  Object.entries(value as Record<string, unknown>).reduce<Record<string, string>>(
    (all, [key, v]) =>
      typeof v === 'string' ? { ...all, [prefix + key]: v } : { ...all, ...flatten(v, `${prefix}${key}.`) },
    {},
  );
const english = flatten(en);
const SAME_EVERYWHERE = new Set([
  'sections.heading',
  'sections.sandbox',
  'sections.workflow',
  'sections.session',
  'notifications.button',
  'notifications.title',
  'feedback.message',
  'feedback.subjects.question',
  'mobile.title',
  'account.button',
]);

describe('shell dictionaries', () => {
  it.each([
    ['it', it_],
    ['fr', fr],
  ])('%s has every English key, translated', (_language, dictionary) => {
    const translated = flatten(dictionary);
    expect(Object.keys(translated)).toEqual(expect.arrayContaining(Object.keys(english)));
    // Words that are the same in every language (product and section names) may stay.
    const untranslated = Object.keys(english).filter(
      (key) => translated[key] === english[key] && !SAME_EVERYWHERE.has(key),
    );
    expect(untranslated).toEqual([]);
  });
});
