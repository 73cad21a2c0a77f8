import { describe, expect, it } from 'vitest';
import enRuns from '../../i18n/locales/en/runs.json';
import frRuns from '../../i18n/locales/fr/runs.json';
import itRuns from '../../i18n/locales/it/runs.json';
import enSessions from '../../i18n/locales/en/sessions.json';
import frSessions from '../../i18n/locales/fr/sessions.json';
import itSessions from '../../i18n/locales/it/sessions.json';

const flatten = (value: unknown, prefix = ''): Record<string, string> =>
  Object.entries(value as Record<string, unknown>).reduce<Record<string, string>>(
    (all, [key, v]) =>
      typeof v === 'string' ? { ...all, [prefix + key]: v } : { ...all, ...flatten(v, `${prefix}${key}.`) },
    {},
  );
const placeholders = (text: string) => [...text.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]).sort();

// Words that stay the same in the language named (product and technical words).
const SAME = new Set([
  'runs:sandbox',
  'runs:fileColumns.sandbox',
  'runs:terminal',
  'runs:instances_one',
  'runs:instances_other',
  'sessions:webhook.title',
  'sessions:form.notification',
  'sessions:scheduleActive',
]);

describe('session and run dictionaries', () => {
  it.each([
    ['it', 'sessions', enSessions, itSessions],
    ['fr', 'sessions', enSessions, frSessions],
    ['it', 'runs', enRuns, itRuns],
    ['fr', 'runs', enRuns, frRuns],
  ])('%s %s has every English key, translated, with the same placeholders', (_l, ns, en, other) => {
    const english = flatten(en);
    const translated = flatten(other);
    expect(Object.keys(translated).sort()).toEqual(Object.keys(english).sort());
    const untranslated = Object.keys(english).filter(
      (key) => translated[key] === english[key] && !SAME.has(`${ns}:${key}`),
    );
    expect(untranslated).toEqual([]);
    for (const key of Object.keys(english))
      expect([key, placeholders(translated[key]!)]).toEqual([key, placeholders(english[key]!)]);
  });
});
