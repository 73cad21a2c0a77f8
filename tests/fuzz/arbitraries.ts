// fast-check arbitraries derived from the JSON Schemas of api/openapi.yaml: values the schema
// accepts (with its boundaries) and hostile ones it must refuse cleanly.
import fc from 'fast-check';

export type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minItems?: number;
  maxItems?: number;
  default?: unknown;
};

/** Strings that have broken web services before: storage, shells, SQL, paths, encodings. */
export const HOSTILE_STRINGS = [
  '',
  ' ',
  'a\u0000b',
  '\u0000',
  'a\uD800b',
  '\uDFFF',
  '../../../../etc/passwd',
  '..%2F..%2Fetc%2Fpasswd',
  '/etc/shadow',
  "' OR '1'='1",
  "'; DROP TABLE users; --",
  '"; $(reboot); `id` | cat /etc/passwd &&',
  '${jndi:ldap://127.0.0.1/a}',
  '{{7*7}}',
  '<script>alert(1)</script>',
  '%00',
  '%s%n%x',
  '\r\nSet-Cookie: x=y',
  'null',
  '-1',
  '1e309',
  'NaN',
  '00000000-0000-0000-0000-000000000000',
  '\u202e\u0301\uFEFF',
  '🧪'.repeat(50),
  'x'.repeat(10_000),
];

/** Hostile values of any JSON type. */
export const hostileValue = (): fc.Arbitrary<unknown> =>
  fc.oneof(
    fc.constantFrom(...HOSTILE_STRINGS),
    fc.constantFrom(null, true, false, 0, -1, 1.5, -1e308, 2 ** 53 + 1, Number.MAX_SAFE_INTEGER),
    fc.constant([]),
    fc.constant({}),
    fc.constant(Array.from({ length: 5000 }, (_, i) => i)),
    fc.constant(deeplyNested(2000)),
    fc.constant({ __proto__: { admin: true }, constructor: { prototype: { admin: true } } }),
    fc.jsonValue({ maxDepth: 3 }),
    fc.string({ unit: 'binary', maxLength: 40 }),
  );

/**
 * [[[…]]] `depth` levels deep. It prints as `deeplyNested(depth)` in fast-check's reports (whose
 * recursive printer would overflow the stack on it); JSON and forms do not see the symbol.
 */
export function deeplyNested(depth: number): unknown {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return Object.assign(value as object, { [fc.toStringMethod]: () => `deeplyNested(${depth})` });
}

const typesOf = (s: JsonSchema): string[] =>
  Array.isArray(s.type) ? s.type : s.type ? [s.type] : s.properties ? ['object'] : [];

/** Values the schema accepts, favouring its boundaries (shortest/longest, least/greatest). */
export function valid(schema: JsonSchema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 6) return fc.constant(null);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives?.length) return fc.oneof(...alternatives.map((a) => valid(a, depth + 1)));
  if (schema.allOf?.length) return valid(Object.assign({}, ...schema.allOf) as JsonSchema, depth + 1);
  const types = typesOf(schema);
  if (types.length > 1) return fc.oneof(...types.map((type) => valid({ ...schema, type }, depth)));
  switch (types[0]) {
    case 'string':
      return validString(schema);
    case 'integer':
    case 'number': {
      const integer = types[0] === 'integer';
      const min =
        schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : -1e6);
      const max =
        schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : 1e6);
      const lo = Math.max(min, -1e9);
      const hi = Math.min(max, 1e9);
      const inside = integer
        ? fc.integer({ min: Math.ceil(lo), max: Math.max(Math.ceil(lo), Math.floor(hi)) })
        : fc.double({ min: lo, max: Math.max(lo, hi), noNaN: true, noDefaultInfinity: true });
      return fc.oneof(fc.constantFrom(Math.ceil(lo), Math.floor(Math.max(lo, hi))), inside);
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const minLength = schema.minItems ?? 0;
      const maxLength = Math.min(schema.maxItems ?? 4, minLength + 4);
      return fc.array(valid(schema.items, depth + 1), { minLength, maxLength });
    }
    case 'object': {
      const props = schema.properties ?? {};
      const required = new Set(schema.required ?? []);
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, s] of Object.entries(props)) record[name] = valid(s, depth + 1);
      if (!Object.keys(record).length && schema.additionalProperties && schema.additionalProperties !== true)
        return fc.dictionary(fc.string({ maxLength: 8 }), valid(schema.additionalProperties, depth + 1), {
          maxKeys: 3,
        });
      return fc.record(record, { requiredKeys: [...required].filter((k) => k in record) });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function validString(schema: JsonSchema): fc.Arbitrary<string> {
  switch (schema.format) {
    case 'uuid':
      return fc.uuid({ version: 4 });
    case 'email':
      return fc.emailAddress();
    case 'date-time':
      return fc
        .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
        .map((d) => d.toISOString());
    case 'uri':
      return fc.webUrl();
  }
  if (schema.pattern) {
    try {
      return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => fitsLength(s, schema));
    } catch {
      // A pattern JavaScript cannot compile: fall through to plain strings.
    }
  }
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.min(schema.maxLength ?? 40, minLength + 200);
  return fc.oneof(
    fc.string({ minLength, maxLength }),
    fc.constant('x'.repeat(minLength)),
    fc.constant('y'.repeat(maxLength)),
  );
}

const fitsLength = (s: string, schema: JsonSchema) =>
  s.length >= (schema.minLength ?? 0) && s.length <= (schema.maxLength ?? Infinity);

/** A value of the schema's type that the schema refuses (or nothing, when the schema takes anything). */
export function wrongType(schema: JsonSchema | undefined): fc.Arbitrary<unknown> {
  const types = schema ? typesOf(schema) : [];
  const others: unknown[] = [
    ['string', 'a string'],
    ['number', 12.5],
    ['integer', 7],
    ['boolean', true],
    ['object', { nested: 'object' }],
    ['array', ['an', 'array']],
    ['null', null],
  ]
    .filter(([type]) => !types.includes(type as string) && !(type === 'integer' && types.includes('number')))
    .map(([, value]) => value);
  return others.length ? fc.constantFrom(...others) : hostileValue();
}

/**
 * A body the route must refuse or take cleanly: the valid one with one field missing, of the
 * wrong type, hostile, or an unknown field added; or something else entirely.
 */
export function mutatedBody(schema: JsonSchema | undefined): fc.Arbitrary<unknown> {
  const props = Object.entries(schema?.properties ?? {});
  const base = valid(schema);
  const field = props.length ? fc.constantFrom(...props) : fc.constant(undefined);
  return fc.oneof(
    fc.tuple(base, field, fc.nat()).map(([value, entry]) => {
      if (!isObject(value) || !entry) return value;
      const copy = { ...value };
      delete copy[entry[0]];
      return copy;
    }),
    fc
      .tuple(base, field)
      .chain(([value, entry]) =>
        isObject(value) && entry
          ? wrongType(entry[1]).map((wrong) => ({ ...value, [entry[0]]: wrong }))
          : fc.constant(value),
      ),
    fc
      .tuple(base, field, hostileValue())
      .map(([value, entry, hostile]) =>
        isObject(value) && entry ? { ...value, [entry[0]]: hostile } : hostile,
      ),
    fc
      .tuple(base, fc.string({ minLength: 1, maxLength: 12 }), hostileValue())
      .map(([value, key, extra]) => (isObject(value) ? { ...value, [`x_${key}`]: extra } : value)),
    hostileValue(),
  );
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
