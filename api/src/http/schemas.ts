import { z } from 'zod';

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
  .union([z.array(z.string().trim()), z.string()])
  .transform((v) => (Array.isArray(v) ? v : v.split(/[\s,]+/)).map((s) => s.trim()).filter(Boolean));

export const zUuid = z.uuid('must be a uuid');

export const zName = z.string().trim().min(1, 'must not be empty').max(100, 'at most 100 characters');

export const zEmail = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.email('must be an e-mail address'))
  .pipe(z.string().max(254));

/** cpu in millicores, memory and disk in MB. */
export const zResources = z.object({ cpu: zNonNegative, memory: zNonNegative, disk: zNonNegative }).strict();

export const idParams = z.object({ id: zUuid }).strict();
export const tokenParams = z.object({ token: z.string().min(10).max(200) }).strict();
