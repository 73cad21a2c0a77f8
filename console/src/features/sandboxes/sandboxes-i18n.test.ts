import { describe, it } from 'vitest';
import { expectLocalesComplete, TRANSLATIONS } from '../../test-support/i18n';

// Words that are the same in the language named (technical terms, product words).
const SAME: Record<string, string[]> = {
  it: ['uid', 'entrypoint', 'cpu', 'gb'],
  fr: [
    'uid',
    'columns.version',
    'columns.architecture',
    'columns.actions',
    'variables',
    'imageFound_one',
    'imageFound_other',
    'version',
    'architecture',
    'terminalPanel',
    'description',
    'destination',
    'publicGroup',
    'imageId',
  ],
};

describe('sandbox dictionaries', () => {
  it.each(TRANSLATIONS)('%s has every English key, translated, with the same placeholders', (language) =>
    expectLocalesComplete('sandboxes', language, SAME[language]),
  );
});
