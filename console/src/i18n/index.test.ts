import i18next from 'i18next';
import { afterEach, describe, expect, it, vi } from 'vitest';
import i18n, { dictionaryBackend, LANGUAGE_KEY, NAMESPACES, setLanguage, type DictionaryLoaders } from '.';
import en from './locales/en';
import fr from './locales/fr';
import it_ from './locales/it';

/** A separate i18next set up as the console's, starting in `lng`, with `loaders` for the translations. */
async function instance(lng: string, loaders: DictionaryLoaders) {
  const i18nInstance = i18next.createInstance();
  await i18nInstance.use(dictionaryBackend(loaders)).init({
    resources: { en },
    partialBundledLanguages: true,
    lng,
    fallbackLng: 'en',
    ns: NAMESPACES,
    defaultNS: 'common',
  });
  return i18nInstance;
}

describe('the dictionaries', () => {
  it.each([
    ['it', it_],
    ['fr', fr],
  ])('%s has the namespaces English has', (_, dictionaries) => {
    expect(NAMESPACES).toContain('auth');
    expect(Object.keys(dictionaries).sort()).toEqual([...NAMESPACES].sort());
  });
});

describe('dictionaryBackend', () => {
  it.each([
    ['it', it_.auth!.login],
    ['fr', fr.auth!.login],
  ])('loads %s with one import for every namespace', async (language, login) => {
    const load = vi.fn(() => Promise.resolve({ default: language === 'it' ? it_ : fr }));
    const i18nInstance = await instance(language, { [language]: load });
    expect(i18nInstance.t('auth:login')).toBe(login);
    expect(i18nInstance.t('auth:login')).not.toBe(en.auth!.login);
    expect(load).toHaveBeenCalledTimes(1);
  });

  it.each([
    ['a chunk that fails to load', { it: () => Promise.reject(new Error('Failed to fetch')) }],
    ['a language without dictionaries', {}],
  ])('shows English for %s', async (_, loaders: DictionaryLoaders) => {
    const i18nInstance = await instance('it', loaders);
    expect(i18nInstance.t('auth:login')).toBe(en.auth!.login);
  });

  it('tries a failed language again on the next read', async () => {
    const load = vi
      .fn<() => Promise<{ default: typeof it_ }>>()
      .mockRejectedValueOnce(new Error('Failed to fetch'))
      .mockResolvedValue({ default: it_ });
    const i18nInstance = await instance('it', { it: load });
    expect(i18nInstance.t('auth:login')).toBe(en.auth!.login);
    await i18nInstance.reloadResources(['it'], NAMESPACES);
    expect(i18nInstance.t('auth:login')).toBe(it_.auth!.login);
    expect(load).toHaveBeenCalledTimes(2);
  });
});

describe('setLanguage', () => {
  afterEach(() => setLanguage('en'));

  it.each([
    ['it', it_.auth!.login],
    ['fr', fr.auth!.login],
    ['en', en.auth!.login],
  ] as const)('shows %s, remembered and on the page', async (language, login) => {
    expect(await setLanguage(language)).toBe(language);
    expect(i18n.language).toBe(language);
    expect(i18n.t('auth:login')).toBe(login);
    expect(localStorage.getItem(LANGUAGE_KEY)).toBe(language);
    expect(document.documentElement.lang).toBe(language);
  });
});
