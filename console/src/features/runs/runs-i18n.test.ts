import { describe, it } from 'vitest';
import { expectLocalesComplete, TRANSLATIONS } from '../../test-support/i18n';

// Words that stay the same in the languages (product and technical words).
const SAME: Record<string, string[]> = {
  runs: [
    'sandbox',
    'fileColumns.sandbox',
    'terminal',
    'instances_one',
    'instances_other',
    'variables',
    'vars.source.workflow',
  ],
  sessions: ['webhook.title', 'form.notification', 'scheduleActive'],
};

describe('session and run dictionaries', () => {
  const table = TRANSLATIONS.flatMap((language) =>
    ['sessions', 'runs'].map((namespace): [string, string] => [language, namespace]),
  );
  it.each(table)(
    '%s %s has every English key, translated, with the same placeholders',
    (language, namespace) => expectLocalesComplete(namespace, language, SAME[namespace]),
  );
});
