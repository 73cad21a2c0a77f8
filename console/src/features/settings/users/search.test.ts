import { describe, expect, it } from 'vitest';
import { emailTags } from './InviteDialog';
import { userMatches } from './search';
import type { UserItem } from '../types';

const user = {
  fullName: 'Ada Lovelace',
  email: 'ada@example.org',
  groups: [{ id: 'g', name: 'Engines', organization: 'o', admin: false }],
  organizations: [{ id: 'o', name: 'Analytical', role: 'user', uid: 1000 }],
} as unknown as UserItem;

describe('user search and invite tags', () => {
  it.each([
    ['', true],
    ['Ada', true],
    ['ada', true], // in the e-mail
    ['Lovelace', true],
    ['lovelace', false], // case-sensitive
    ['Engines', true],
    ['Analytical', true],
    ['Babbage', false],
  ])('%s matches: %s', (search, expected) => {
    expect(userMatches(user, search)).toBe(expected);
  });

  it.each([
    [[], 'a@x.org b@x.org', ['a@x.org', 'b@x.org']],
    [['a@x.org'], 'a@x.org  c@x.org ', ['a@x.org', 'c@x.org']],
    [[], '   ', []],
  ])('tags %o + %s', (current, typed, expected) => {
    expect(emailTags(current, typed)).toEqual(expected);
  });
});
