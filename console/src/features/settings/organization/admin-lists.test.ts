import { describe, expect, it } from 'vitest';
import { adminsChanged, moveAdmin } from './admin-lists';

describe('organization admin lists', () => {
  it.each([
    [['a'], 'b', true, ['a', 'b']],
    [['a', 'b'], 'b', true, ['a', 'b']],
    [['a', 'b'], 'a', false, ['b']],
    [['a'], 'c', false, ['a']],
  ])('moveAdmin(%o, %s, toAdmins %s) is %o', (admins, id, toAdmins, expected) => {
    expect(moveAdmin(admins, id, toAdmins)).toEqual(expected);
  });

  it.each([
    [['a', 'b'], ['b', 'a'], false],
    [['a'], ['a', 'b'], true],
    [['a', 'b'], ['a', 'c'], true],
  ])('adminsChanged(%o, %o) is %s', (saved, current, expected) => {
    expect(adminsChanged(saved, current)).toBe(expected);
  });
});
