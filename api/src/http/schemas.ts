import { z } from 'zod';

// Every string a client sends can reach the database, which refuses NUL (PostgreSQL text) and
// cannot store half of a UTF-16 surrogate pair as UTF-8: refused here, a 422 naming the field,
// rather than a 500 from the driver.
// eslint-disable-next-line no-control-regex
const NUL = /\u0000/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export interface TextRule {
  /** Fewest characters after trimming (default 0). */
  min?: number;
  /** Said when shorter than `min`. */
  minMessage?: string;
  /** Said when longer than the maximum. */
  maxMessage?: string;
  /** Trim surrounding white space before measuring (default true; passwords keep theirs). */
  trim?: boolean;
}

/**
 * The one rule for strings that can reach the database: no NUL, no lone surrogates, and a
 * length limit counted after trimming. Every request schema builds its strings from this.
 */
export function zText(max: number, rule: TextRule = {}) {
  const base = rule.trim === false ? z.string() : z.string().trim();
  const safe = base
    .refine((v) => !NUL.test(v), 'must not contain NUL characters')
    .refine((v) => !LONE_SURROGATE.test(v), 'must not contain lone surrogates (invalid UTF-16)');
  const bounded = rule.min ? safe.min(rule.min, rule.minMessage ?? `at least ${rule.min} characters`) : safe;
  return bounded.max(max, rule.maxMessage ?? `at most ${max} characters`);
}

// Form-urlencoded bodies carry every value as text, so the shared field types accept
// both the JSON type and its text spelling.

export const zBool = z
  .union([z.boolean(), z.enum(['true', 'false', '1', '0', 'on', 'off'])])
  .transform((v) => v === true || v === 'true' || v === '1' || v === 'on');

export const zNumber = z.union([
  z.number(),
  z
    .string()
    .trim()
    .regex(/^-?\d+(\.\d+)?$/, 'must be a number')
    .transform(Number),
]);

export const zNonNegative = zNumber.pipe(z.number().min(0, 'must be at least 0').max(1e9, 'too large'));

export const zInt = zNumber.pipe(z.number().int('must be an integer'));

/** A list sent as a JSON array, repeated form fields, or one space/comma separated string. */
export const zStringList = z
  .union([z.array(zText(1000)), zText(10_000)])
  .transform((v) => (Array.isArray(v) ? v : v.split(/[\s,]+/)).map((s) => s.trim()).filter(Boolean));

export const zUuid = z.uuid('must be a uuid');

export const zName = zText(100, { min: 1, minMessage: 'must not be empty' });

export const zEmail = zText(254).toLowerCase().pipe(z.email('must be an e-mail address'));

/** cpu in millicores, memory and disk in MB. */
export const zResources = z.object({ cpu: zNonNegative, memory: zNonNegative, disk: zNonNegative }).strict();

export const idParams = z.object({ id: zUuid }).strict();
export const tokenParams = z.object({ token: zText(200, { min: 10 }) }).strict();
