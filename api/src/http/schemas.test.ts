import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { routeDefinitions } from '../openapi-generate.js';
import { zText } from './schemas.js';

const NUL = 'a\u0000b';
const LONE_HIGH = 'a\uD800b';
const LONE_LOW = '\uDC00b';

describe('zText', () => {
  it.each([
    ['plain text', '  Alpha  ', 'Alpha'],
    ['a surrogate pair (emoji)', 'team 🚀', 'team 🚀'],
    ['text at the limit after trimming', `  ${'x'.repeat(10)}  `, 'x'.repeat(10)],
  ])('accepts %s', (_case, input, output) => {
    expect(zText(10).parse(input)).toBe(output);
  });

  it.each([
    ['a NUL character', NUL, 'must not contain NUL characters'],
    ['a lone high surrogate', LONE_HIGH, 'must not contain lone surrogates'],
    ['a lone low surrogate', LONE_LOW, 'must not contain lone surrogates'],
    ['too long once trimmed', 'x'.repeat(11), 'at most 10 characters'],
    ['blank where text is required', '   ', 'at least 1 characters'],
  ])('refuses %s', (_case, input, message) => {
    const parsed = zText(10, { min: 1 }).safeParse(input);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toContain(message);
  });

  it('keeps surrounding white space when asked (passwords)', () => {
    expect(zText(10, { trim: false }).parse(' pw ')).toBe(' pw ');
  });
});

type Json = { type?: string; properties?: Record<string, Json>; items?: Json; anyOf?: Json[] };

/** Paths (as zod reports them) of every string a request schema accepts. */
function stringPaths(schema: Json, at: (string | number)[] = []): (string | number)[][] {
  if (schema.anyOf) return schema.anyOf.flatMap((option) => stringPaths(option, at));
  if (schema.type === 'string') return [at];
  if (schema.type === 'array' && schema.items) return stringPaths(schema.items, [...at, 0]);
  return Object.entries(schema.properties ?? {}).flatMap(([key, child]) => stringPaths(child, [...at, key]));
}

/** A value holding `text` at `path` and nothing else. */
function valueAt(path: (string | number)[], text: string): unknown {
  if (!path.length) return text;
  const [head, ...rest] = path;
  return typeof head === 'number' ? [valueAt(rest, text)] : { [head!]: valueAt(rest, text) };
}

const FIELDS = routeDefinitions().flatMap((r) =>
  (['body', 'query', 'params'] as const).flatMap((where) => {
    const schema = r[where] as z.ZodType | undefined;
    if (!schema) return [];
    const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Json;
    const unique = new Map(stringPaths(json).map((p) => [p.join('.'), p]));
    return [...unique.values()].map(
      (path) => [`${r.method.toUpperCase()} ${r.path} ${where}.${path.join('.')}`, schema, path] as const,
    );
  }),
);

describe('every string a route accepts', () => {
  it('covers the request schemas', () => {
    expect(FIELDS.length).toBeGreaterThan(40);
  });

  it.each(FIELDS)('%s refuses NUL and lone surrogates at that field', (_name, schema, path) => {
    for (const text of [NUL, LONE_HIGH]) {
      const parsed = schema.safeParse(valueAt(path, text));
      expect(parsed.success).toBe(false);
      const issues = parsed.error!.issues.filter((i) => i.path.join('.') === path.join('.'));
      expect(issues.length, `no issue at ${path.join('.')}`).toBeGreaterThan(0);
    }
  });
});
