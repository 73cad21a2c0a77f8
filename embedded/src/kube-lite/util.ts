import { randomBytes } from 'node:crypto';

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => deepEqual(v, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao).filter((k) => ao[k] !== undefined);
  const bk = Object.keys(bo).filter((k) => bo[k] !== undefined);
  return ak.length === bk.length && ak.every((k) => deepEqual(ao[k], bo[k]));
}

export const clone = <T>(v: T): T => structuredClone(v);

const ALPHANUM = 'bcdfghjklmnpqrstvwxz2456789';

/** kube's generateName suffix: five characters from an alphabet without vowels. */
export function randomSuffix(length = 5): string {
  const bytes = randomBytes(length);
  let s = '';
  for (const b of bytes) s += ALPHANUM[b % ALPHANUM.length];
  return s;
}

export const nowIso = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
