import { describe, expect, it } from 'vitest';
import en from '../../i18n/locales/en/workflows.json';
import fr from '../../i18n/locales/fr/workflows.json';
import it_ from '../../i18n/locales/it/workflows.json';

const keys = (o: object, prefix = ''): string[] =>
  Object.entries(o).flatMap(([k, v]) =>
    typeof v === 'object' && v !== null ? keys(v as object, `${prefix}${k}.`) : [`${prefix}${k}`],
  );
const placeholders = (dict: object) =>
  Object.fromEntries(
    keys(dict).map((k) => [
      k,
      [
        ...String(k.split('.').reduce<unknown>((o, p) => (o as Record<string, unknown>)[p], dict)).matchAll(
          /{{(\w+)}}/g,
        ),
      ]
        .map((m) => m[1])
        .sort(),
    ]),
  );

describe('the workflows dictionaries', () => {
  it.each([
    ['it', it_],
    ['fr', fr],
  ])('%s has every English key, with the same placeholders', (_language, dict) => {
    expect(keys(dict).sort()).toEqual(keys(en).sort());
    expect(placeholders(dict)).toEqual(placeholders(en));
  });

  it.each([
    ['problems.emptyName', 'Please, enter a valid workflow name'],
    ['problems.emptyVariables', 'You have empty fields on environment variables'],
    ['problems.duplicateSandbox', 'Find two or more sandbox with the same name'],
    ['problems.noAttributes', 'This sandbox has no attributes'],
    ['edgeRefused.title', 'Invalid edge creation'],
    ['edgeRefused.same', 'Source and destination are the same'],
    ['edgeRefused.cycle', 'The current edge would create a cycle in the workflow'],
    ['leaveText', 'Your workflow may have no saved update, exit anyway?'],
    ['noWorkflow', 'You have no workflow'],
  ])('English %s is the spec wording', (key, text) => {
    expect(key.split('.').reduce<unknown>((o, p) => (o as Record<string, unknown>)[p], en)).toBe(text);
  });
});
