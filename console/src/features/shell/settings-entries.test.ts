import { describe, expect, it } from 'vitest';
import type { Role } from '../../api/answers';
import { settingsEntries } from './settings-entries';

describe('settings gear entries', () => {
  it.each<[Role | null, string[]]>([
    ['admin', ['/settings/admin', '/settings/organization', '/settings/users', '/outbox']],
    ['organization_admin', ['/settings/organization', '/settings/users']],
    ['group_admin', ['/settings/users']],
    ['user', []],
    [null, []],
  ])('role %j sees %j', (role, paths) => {
    expect(settingsEntries(role).map((entry) => entry.to)).toEqual(paths);
  });

  it('names the entries in the order of the menu', () => {
    expect(settingsEntries('admin').map((entry) => entry.key)).toEqual([
      'superSettings',
      'organizationSettings',
      'usersSettings',
      'outbox',
    ]);
  });
});
