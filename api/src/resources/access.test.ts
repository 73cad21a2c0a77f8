import { describe, expect, it } from 'vitest';
import { accessOf, type Access, type Viewer } from './access.js';
import type { AccessSubject } from './types.js';

const ME = 'u-me';
const viewer = (overrides: Partial<Viewer> = {}): Viewer => ({
  userId: ME,
  organizationId: 'org',
  admin: false,
  groups: new Set(['g1']),
  isUser: (owner) => owner === ME || owner === 'u-other',
  names: new Map(),
  ...overrides,
});
const subject = (overrides: Partial<AccessSubject> = {}): AccessSubject => ({
  owner: 'u-other',
  permissions: {},
  visibility: { type: 'private', locked: false },
  ...overrides,
});
const access = (view: boolean, edit: boolean, use: boolean, own: boolean): Access => ({
  view,
  edit,
  use,
  own,
});
const NONE = access(false, false, false, false);
const ALL = access(true, true, true, true);

describe('accessOf', () => {
  it.each([
    ['the owner', viewer(), subject({ owner: ME }), ALL],
    ['a stranger to a private object', viewer(), subject(), NONE],
    ['an admin to a private object of a user', viewer({ admin: true }), subject(), NONE],
    [
      'a member of a group with read',
      viewer(),
      subject({ permissions: { g1: { read: true } } }),
      access(true, false, false, false),
    ],
    [
      'a member of a group with write (implies read)',
      viewer(),
      subject({ permissions: { g1: { write: true } } }),
      access(true, true, false, false),
    ],
    [
      'a member of a group with execute only (cannot see it)',
      viewer(),
      subject({ permissions: { g1: { execute: true } } }),
      access(false, false, true, false),
    ],
    [
      'a member of another group',
      viewer(),
      subject({ permissions: { g2: { read: true, write: true } } }),
      NONE,
    ],
    [
      'anyone, through _public',
      viewer({ groups: new Set() }),
      subject({ permissions: { _public: { read: true, execute: true } } }),
      access(true, false, true, false),
    ],
    [
      'anyone, to a public object',
      viewer({ groups: new Set() }),
      subject({ visibility: { type: 'public', locked: true } }),
      access(true, false, false, false),
    ],
    [
      'a user, to an ownerless public object',
      viewer(),
      subject({ owner: undefined, visibility: { type: 'public', locked: false } }),
      access(true, false, false, false),
    ],
    ['an admin, to an ownerless object', viewer({ admin: true }), subject({ owner: undefined }), ALL],
    [
      'an admin, to an object whose owner names no user',
      viewer({ admin: true }),
      subject({ owner: 'flux-system' }),
      ALL,
    ],
    ['a user, to an ownerless private object', viewer(), subject({ owner: undefined }), NONE],
  ])('%s', (_who, v, s, expected) => {
    expect(accessOf(v, s)).toEqual(expected);
  });
});
