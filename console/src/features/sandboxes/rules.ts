// The sandbox rules of spec 1 §4, §5 and §9. Problems are i18n keys of the 'sandboxes' namespace.
import type { Constraints, Permission, Variable } from './types';

export const DEFAULT_VERSION = '1.0.0';
export const VERSION_MAX = 128;
export const PAGE_SIZES = [10, 30, 50] as const;
export const DEFAULT_PAGE_SIZE = 30;
export const IMAGE_CHECK_DEBOUNCE_MS = 600;
export const TERMINAL_COLS = 160;
export const TERMINAL_ROWS = 46;
/** The terminal's height as a share of the window's. */
export const TERMINAL_HEIGHT = 0.77;

/** The form shows cores and GB; steps and minimums of spec 1 §5. */
export const RESOURCE_INPUTS = {
  cpu: { step: 0.5, min: 0.5 },
  memory: { step: 0.5, min: 0.5 },
  disk: { step: 0.1, min: 0.1 },
} as const;
export type Resource = keyof typeof RESOURCE_INPUTS;
export const DEFAULT_RESOURCES: Record<Resource, number> = { cpu: 0.5, memory: 0.5, disk: 0.1 };

/** Stored constraints (millicores, MB) as the form shows them (cores; GB with one decimal). */
export function shownResources(constraints: Constraints): Record<Resource, number> {
  const gb = (mb: number) => Math.round((mb / 1024) * 10) / 10;
  return { cpu: constraints.cpu / 1000, memory: gb(constraints.memory), disk: gb(constraints.disk) };
}
/** The form's cores and GB as sent: millicores and MB. */
export function sentResources(shown: Record<Resource, number>): Constraints {
  return {
    cpu: Math.round(shown.cpu * 1000),
    memory: Math.round(shown.memory * 1024),
    disk: Math.round(shown.disk * 1024),
  };
}

const NAME_CHAR = /[A-Za-z0-9_]/;
/** What typing into the name field keeps, and the characters it refused ('#' → toast). */
export function filterName(typed: string): { name: string; rejected: string } {
  let name = '';
  let rejected = '';
  for (const char of typed) {
    if (NAME_CHAR.test(char)) name += char;
    else if (!rejected.includes(char)) rejected += char;
  }
  return { name, rejected };
}
export const isValidName = (name: string) => /^[A-Za-z0-9_]+$/.test(name);

const VERSION = new RegExp(`^[A-Za-z0-9][A-Za-z0-9._-]{0,${VERSION_MAX - 1}}$`);
export const isValidVersion = (version: string) => VERSION.test(version);

/** What the Save of the settings needs, in the order the spec lists it; null when it may be sent. */
export function settingsProblem(form: {
  name: string;
  version: string;
  entrypoint: string;
  resources: Record<Resource, number>;
}): string | null {
  if (form.name.trim() === '') return 'enterValidName';
  if (!isValidName(form.name)) return 'enterValidName';
  if (form.version.trim() === '') return 'enterValidVersion';
  if (!isValidVersion(form.version)) return 'invalidVersionFormat';
  if (form.entrypoint.trim() === '') return 'enterEntrypoint';
  if (Object.values(form.resources).some((v) => !Number.isFinite(v) || v <= 0)) return 'invalidResources';
  return null;
}

/** The Create button: a checked image, a name with an allowed character, and no terminal yet. */
export const canCreate = (state: { imageValid: boolean; name: string; terminal: boolean }) =>
  state.imageValid && NAME_CHAR.test(state.name) && !state.terminal;

const extension = (fileName: string) => /\.([^.]+)$/.exec(fileName)?.[1]?.toLowerCase() ?? '';
export const AVATAR_EXTENSIONS = ['jpg', 'jpeg', 'png'];
export const isAvatarFile = (fileName: string) => AVATAR_EXTENSIONS.includes(extension(fileName));
/** The variable file picker accepts csv, json and yml (the message names only .csv). */
export const VARIABLE_FILE_ACCEPT = '.csv,.json,.yml';
export const isVariableFile = (fileName: string) => ['csv', 'json', 'yml'].includes(extension(fileName));
/** The upload picker flags these extensions as invalid (spec 1 §5). */
export const FLAGGED_UPLOADS = ['py', 'go', 'c', 'cpp', 'java', 'json', 'yml', 'sh'];
export const isFlaggedUpload = (fileName: string) => FLAGGED_UPLOADS.includes(extension(fileName));

/** Variables as saved: rows with an empty name are dropped. */
export const savedVariables = (rows: Variable[]) => rows.filter((row) => row.name.trim() !== '');
/** The popover refuses a row with a value but no name ('Can't save with empty values'). */
export const hasNamelessValue = (rows: Variable[]) =>
  rows.some((row) => row.name.trim() === '' && row.value !== '');
export const sameVariables = (a: Variable[], b: Variable[]) =>
  a.length === b.length && a.every((row, i) => row.name === b[i]!.name && row.value === b[i]!.value);

export type Access = keyof Permission;
export const NO_ACCESS: Permission = { read: false, write: false, execute: false };
/**
 * A tick in the authorizations table (spec 1 §4): edit forces view on, unticking view clears
 * edit. On a fresh row this gives the defaults view only, view + edit, or use only.
 */
export function tick(row: Permission, access: Access, checked: boolean): Permission {
  const next = { ...row, [access]: checked };
  if (access === 'write' && checked) next.read = true;
  if (access === 'read' && !checked) next.write = false;
  return next;
}

/** The pseudo-group everybody is in (spec 1 §3). */
export const PUBLIC_GROUP = '_public';
/** Public if any permission grants something (spec 1 §3). */
export const isPublic = (permissions: Record<string, Permission>) =>
  Object.values(permissions).some((p) => p.read || p.write || p.execute);

/** Spec 1 §6: who may do what to a sandbox (the API says whether the caller owns it). */
export function sandboxRights(sandbox: { user_access: { read: boolean; write: boolean; owner: boolean } }) {
  const { owner, read, write } = sandbox.user_access;
  return { owner, edit: owner || write, clone: owner || read || write };
}
