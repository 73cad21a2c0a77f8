import { describe, expect, it } from 'vitest';
import {
  canCreate,
  filterName,
  hasNamelessValue,
  isFlaggedUpload,
  isValidVersion,
  sandboxRights,
  sentResources,
  settingsProblem,
  shownResources,
  tick,
  type Access,
} from './rules';
import type { Permission } from './types';

const VALID = {
  name: 'ndvi_2',
  version: '1.0.0',
  entrypoint: '/entrypoint.sh',
  resources: { cpu: 0.5, memory: 0.5, disk: 0.1 },
};

describe('the settings Save (spec 1 §5)', () => {
  it.each([
    [{}, null],
    [{ name: '' }, 'enterValidName'],
    [{ name: '   ' }, 'enterValidName'],
    [{ name: 'with#hash' }, 'enterValidName'],
    [{ name: 'with-dash' }, 'enterValidName'],
    [{ version: '' }, 'enterValidVersion'],
    [{ version: '-1.0' }, 'invalidVersionFormat'],
    [{ version: '.hidden' }, 'invalidVersionFormat'],
    [{ version: '1.0 beta' }, 'invalidVersionFormat'],
    [{ version: 'v'.repeat(129) }, 'invalidVersionFormat'],
    [{ version: 'v'.repeat(128) }, null],
    [{ version: 'A_b-c.9' }, null],
    [{ entrypoint: '' }, 'enterEntrypoint'],
    [{ entrypoint: '  ' }, 'enterEntrypoint'],
    [{ resources: { cpu: 0, memory: 0.5, disk: 0.1 } }, 'invalidResources'],
    [{ resources: { cpu: 0.5, memory: -1, disk: 0.1 } }, 'invalidResources'],
    [{ resources: { cpu: 0.5, memory: 0.5, disk: NaN } }, 'invalidResources'],
  ])('%j → %s', (patch, problem) => {
    expect(settingsProblem({ ...VALID, ...patch })).toBe(problem);
  });

  it.each([
    ['1.0.0', true],
    ['a', true],
    ['0-rc_1.2', true],
    ['_1', false],
    ['', false],
    ['1/2', false],
  ])('version %j valid: %s', (version, valid) => expect(isValidVersion(version)).toBe(valid));
});

describe('typing a name keeps letters, digits and underscores', () => {
  it.each([
    ['ndvi_2', 'ndvi_2', ''],
    ['nd#vi', 'ndvi', '#'],
    ['a-b c#d#', 'abcd', '- #'],
    ['été', 't', 'é'],
  ])('%j → %j, refused %j', (typed, name, rejected) => expect(filterName(typed)).toEqual({ name, rejected }));
});

describe('Create (spec 1 §5)', () => {
  it.each([
    [{ imageValid: true, name: 'x', terminal: false }, true],
    [{ imageValid: false, name: 'x', terminal: false }, false],
    [{ imageValid: true, name: '', terminal: false }, false],
    [{ imageValid: true, name: 'x', terminal: true }, false],
  ])('%j → %s', (state, enabled) => expect(canCreate(state)).toBe(enabled));
});

describe('resources: cores and GB shown, millicores and MB stored (spec 1 §9)', () => {
  it.each([
    [
      { cpu: 500, memory: 512, disk: 102 },
      { cpu: 0.5, memory: 0.5, disk: 0.1 },
    ],
    [
      { cpu: 2000, memory: 4096, disk: 10240 },
      { cpu: 2, memory: 4, disk: 10 },
    ],
    [
      { cpu: 1500, memory: 1000, disk: 1536 },
      { cpu: 1.5, memory: 1, disk: 1.5 },
    ],
  ])('%j shows as %j', (stored, shown) => expect(shownResources(stored)).toEqual(shown));

  it.each([
    [
      { cpu: 0.5, memory: 0.5, disk: 0.1 },
      { cpu: 500, memory: 512, disk: 102 },
    ],
    [
      { cpu: 2.5, memory: 1.5, disk: 20 },
      { cpu: 2500, memory: 1536, disk: 20480 },
    ],
  ])('%j is sent as %j', (shown, sent) => expect(sentResources(shown)).toEqual(sent));
});

const NONE: Permission = { read: false, write: false, execute: false };
describe('authorization ticks (spec 1 §4)', () => {
  it.each<[Permission, Access, boolean, Permission]>([
    // A fresh row gets the defaults: view only, view + edit, or use only.
    [NONE, 'read', true, { read: true, write: false, execute: false }],
    [NONE, 'write', true, { read: true, write: true, execute: false }],
    [NONE, 'execute', true, { read: false, write: false, execute: true }],
    // Edit forces view on; unticking view clears edit.
    [{ read: false, write: false, execute: true }, 'write', true, { read: true, write: true, execute: true }],
    [{ read: true, write: true, execute: false }, 'read', false, NONE],
    [{ read: true, write: true, execute: true }, 'read', false, { read: false, write: false, execute: true }],
    [
      { read: true, write: true, execute: false },
      'write',
      false,
      { read: true, write: false, execute: false },
    ],
    [
      { read: true, write: false, execute: true },
      'execute',
      false,
      { read: true, write: false, execute: false },
    ],
  ])('%j, %s ticked %s → %j', (row, access, checked, next) =>
    expect(tick(row, access, checked)).toEqual(next),
  );
});

describe('rights (spec 1 §6)', () => {
  it.each([
    [
      { owner: true, read: false, write: false },
      { owner: true, edit: true, clone: true },
    ],
    [
      { owner: false, read: true, write: true },
      { owner: false, edit: true, clone: true },
    ],
    [
      { owner: false, read: true, write: false },
      { owner: false, edit: false, clone: true },
    ],
    [
      { owner: false, read: false, write: false },
      { owner: false, edit: false, clone: false },
    ],
  ])('access %j → %j', (access, rights) => expect(sandboxRights({ user_access: access })).toEqual(rights));
});

describe('files', () => {
  it.each([
    ['run.sh', true],
    ['main.PY', true],
    ['values.yml', true],
    ['data.csv', false],
    ['model.bin', false],
    ['Makefile', false],
  ])('upload %s flagged: %s', (name, flagged) => expect(isFlaggedUpload(name)).toBe(flagged));

  it.each([
    [[{ name: '', value: 'x' }], true],
    [[{ name: '', value: '' }], false],
    [[{ name: 'A', value: '' }], false],
  ])('variables %j have a value without a name: %s', (rows, blocked) =>
    expect(hasNamelessValue(rows)).toBe(blocked),
  );
});
