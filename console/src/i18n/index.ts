import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';

export const LANGUAGES = ['en', 'it', 'fr'] as const;
export type Language = (typeof LANGUAGES)[number];
/** Local storage key of the chosen language (spec 1 §9: default en). */
export const LANGUAGE_KEY = 'language';

// Every dictionary is a JSON file per language and feature (namespace):
// locales/{en,it,fr}/{common,shell,auth,profile,logs}.json. They are small, so they
// ship with the first chunk instead of being fetched.
const files = import.meta.glob<{ default: Record<string, unknown> }>('./locales/*/*.json', { eager: true });
const resources: Record<string, Record<string, Record<string, unknown>>> = {};
for (const [path, module] of Object.entries(files)) {
  const [, language, namespace] = /\.\/locales\/(\w+)\/(\w+)\.json$/.exec(path)!;
  (resources[language!] ??= {})[namespace!] = module.default;
}
export const NAMESPACES = Object.keys(resources.en ?? {});

export function storedLanguage(): Language {
  const value = typeof localStorage === 'undefined' ? null : localStorage.getItem(LANGUAGE_KEY);
  return (LANGUAGES as readonly string[]).includes(value ?? '') ? (value as Language) : 'en';
}

export function setLanguage(language: Language) {
  localStorage.setItem(LANGUAGE_KEY, language);
  document.documentElement.lang = language;
  return i18n.changeLanguage(language);
}

void i18n.use(initReactI18next).init({
  resources,
  lng: storedLanguage(),
  fallbackLng: 'en',
  ns: NAMESPACES,
  defaultNS: 'common',
  interpolation: { escapeValue: false },
  returnNull: false,
});

export default i18n;
