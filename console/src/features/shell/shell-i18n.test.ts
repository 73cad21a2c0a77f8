import { describe, it } from 'vitest';
import { TRANSLATIONS, expectLocalesComplete } from '../../test-support/i18n';

// Words that are the same in every language (product and section names) may stay.
const SAME_EVERYWHERE = [
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
];

describe('shell dictionaries', () => {
  it.each(TRANSLATIONS)('%s has exactly the English keys, translated, with their placeholders', (language) =>
    expectLocalesComplete('shell', language, SAME_EVERYWHERE),
  );
});
