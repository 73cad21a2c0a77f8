import i18n, { type BackendModule } from 'i18next';
import { initReactI18next } from 'react-i18next';
import type { Dictionaries } from './locales/dictionaries';
import en from './locales/en';

export const LANGUAGES = ['en', 'it', 'fr'] as const;
export type Language = (typeof LANGUAGES)[number];
/** Local storage key of the chosen language (spec 1 §9: default en). */
export const LANGUAGE_KEY = 'language';

// Every dictionary is a JSON file per language and feature (namespace):
// locales/{en,it,fr}/{common,shell,auth,…}.json, gathered per language by locales/<language>/index.ts.
// English, the fallback, ships in the entry chunk; Italian and French are one chunk each, loaded
// when chosen (at start-up before the first render, see main.tsx, or on a switch).
export const NAMESPACES = Object.keys(en);

export type DictionaryLoaders = Partial<Record<string, () => Promise<{ default: Dictionaries }>>>;

const translations: DictionaryLoaders = {
  it: () => import('./locales/it'),
  fr: () => import('./locales/fr'),
};

/**
 * An i18next backend reading every namespace of a language from one dynamic import (one request
 * per language however many namespaces i18next asks for). A language it has no loader for, or
 * whose chunk fails to load, is a read error: i18next then shows the fallback language, English.
 */
export function dictionaryBackend(loaders: DictionaryLoaders): BackendModule {
  const loading = new Map<string, Promise<Dictionaries>>();
  const load = (language: string) => {
    let dictionaries = loading.get(language);
    if (!dictionaries) {
      const loader = loaders[language];
      dictionaries = loader
        ? loader().then((module) => module.default)
        : Promise.reject(new Error(`no dictionaries for the language '${language}'`));
      // A failed load (offline, a chunk gone after a deployment) is tried again on the next read.
      dictionaries.catch(() => loading.delete(language));
      loading.set(language, dictionaries);
    }
    return dictionaries;
  };
  return {
    type: 'backend',
    callbackApi: true,
    init: () => {},
    read: (language, namespace, callback) => {
      load(language).then(
        (dictionaries) => callback(null, dictionaries[namespace] ?? {}),
        (error: Error) => callback(error, null),
      );
    },
  };
}

export function storedLanguage(): Language {
  const value = typeof localStorage === 'undefined' ? null : localStorage.getItem(LANGUAGE_KEY);
  return (LANGUAGES as readonly string[]).includes(value ?? '') ? (value as Language) : 'en';
}

/** Whether `language`'s dictionaries are loaded (English always is). */
const loaded = (language: string) => NAMESPACES.every((ns) => i18n.hasResourceBundle(language, ns));

/**
 * Shows `language`, loading its dictionaries first; when they cannot be loaded the console stays
 * in (or goes back to) English. Resolves with the language shown.
 */
async function show(language: string): Promise<string> {
  // A language that failed to load before is read again (i18next would not retry by itself).
  if (!loaded(language)) await i18n.reloadResources([language], NAMESPACES);
  await i18n.changeLanguage(loaded(language) ? language : 'en');
  if (typeof document !== 'undefined') document.documentElement.lang = i18n.language;
  return i18n.language;
}

/** Switches the console's language and remembers the choice (the next visit starts in it). */
export function setLanguage(language: Language) {
  localStorage.setItem(LANGUAGE_KEY, language);
  return show(language);
}

const initial = storedLanguage();

/**
 * Settles once the stored language's dictionaries are loaded (or failed to, then in English):
 * main.tsx renders after it, so an Italian or French visit shows no English first.
 */
export const i18nReady: Promise<string> = i18n
  .use(dictionaryBackend(translations))
  .use(initReactI18next)
  .init({
    resources: { en },
    partialBundledLanguages: true,
    lng: initial,
    fallbackLng: 'en',
    ns: NAMESPACES,
    defaultNS: 'common',
    interpolation: { escapeValue: false },
    returnNull: false,
  })
  .then(() => show(initial));

export default i18n;
