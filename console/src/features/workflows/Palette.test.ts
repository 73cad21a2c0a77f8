import { describe, expect, it } from 'vitest';
import { aSandbox, OTHER_ID, OWNER_ID } from '../sandboxes/testing';
import { filterPalette, type PaletteFilters } from './Palette';

const SANDBOXES = [
  aSandbox(1, { name: 'ingest', tags: ['etl'], visibility: { type: 'private', locked: false } }),
  aSandbox(2, {
    name: 'Worker',
    author_id: OTHER_ID,
    author: 'Bob Martin',
    visibility: { type: 'public', locked: false },
  }),
  aSandbox(3, { name: 'report', tags: ['etl', 'pdf'], visibility: { type: 'group', locked: false } }),
];
const NONE: PaletteFilters = { search: '', mine: false, visibility: '', tag: '' };

describe('filterPalette', () => {
  it.each([
    ['nothing chosen', {}, ['ingest', 'Worker', 'report']],
    ['a name, any case', { search: 'WORK' }, ['Worker']],
    ['an owner', { search: 'bob' }, ['Worker']],
    ['a tag in the search', { search: 'pdf' }, ['report']],
    ['Mine', { mine: true }, ['ingest', 'report']],
    ['visibility group', { visibility: 'group' }, ['report']],
    ['a tag', { tag: 'etl' }, ['ingest', 'report']],
    ['Mine and a tag and public', { mine: true, tag: 'etl', visibility: 'public' }, []],
  ] as const)('%s', (_what, filters, names) => {
    expect(filterPalette(SANDBOXES, { ...NONE, ...filters }, OWNER_ID).map((s) => s.name)).toEqual(names);
  });
});
