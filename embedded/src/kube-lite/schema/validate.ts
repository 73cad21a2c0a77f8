/**
 * CRD object validation with kube-openapi's semantics and apiextensions-apiserver's wording:
 * each kube-openapi error is mapped to the field.Error kube-apiserver returns as a StatusCause.
 */
import type { FieldError, JSONSchemaProps } from '../types.js';
import * as fe from './field-errors.js';
import { compileGoRegexp } from './go-regexp.js';
import { goFloat, goQuote, sortedJson } from './go-format.js';
import { integerFitsFormat, matchesFormat } from './formats.js';
import { deepEqual, isObject, jsonTypeOf, runeCount } from './json-value.js';
import { validateListTypes } from './list-types.js';

/**
 * Validates `obj` against `schema`. `rootPath` prefixes every path (kube validates the whole
 * object from the root, so callers normally leave it empty).
 */
export function validate(schema: JSONSchemaProps, obj: unknown, rootPath = ''): FieldError[] {
  const errors: FieldError[] = [];
  validateNode(schema, obj, rootPath, errors);
  // apiextensions checks list-type uniqueness in a second pass after the OpenAPI validation.
  validateListTypes(schema, obj, rootPath, errors);
  return errors;
}

/** Path of a child as kube-openapi names it: `a.b`, with no leading dot at the root. */
function child(path: string, name: string): string {
  return path === '' ? name : `${path}.${name}`;
}

/** kube-openapi error names become field paths with any leading dot trimmed. */
function fieldOf(name: string): string {
  return name.startsWith('.') ? name.slice(1) : name;
}

function validateNode(schema: JSONSchemaProps, data: unknown, path: string, errors: FieldError[]): void {
  if (data === null || data === undefined) {
    // kube-openapi's early exit for null: only the type and enum checks run.
    checkType(schema, null, path, errors);
    if (!schema.nullable) checkEnum(schema, null, path, errors);
    return;
  }
  checkType(schema, data, path, errors);
  checkComposition(schema, data, path, errors);
  if (typeof data === 'string') checkString(schema, data, path, errors);
  else if (typeof data === 'number') checkNumber(schema, data, path, errors);
  else if (Array.isArray(data)) checkArray(schema, data, path, errors);
  checkEnum(schema, data, path, errors);
  if (isObject(data)) checkObject(schema, data, path, errors);
}

function declaredTypes(schema: JSONSchemaProps): string[] {
  if (schema['x-kubernetes-int-or-string']) return ['integer', 'string'];
  return schema.type ? [schema.type] : [];
}

function checkType(schema: JSONSchemaProps, data: unknown, path: string, errors: FieldError[]): void {
  const types = declaredTypes(schema);
  const label = types.join(',');
  const format = schema.format ?? '';
  if (types.length === 0 && format === '') return;
  const actual = jsonTypeOf(data);
  if (actual === 'null') {
    if (types.length > 0 && !schema.nullable) {
      errors.push(fe.typeInvalid(fieldOf(path), 'null', `${path} in body must be of type ${label}: "null"`));
    }
    return;
  }
  const numeric = types.includes('number') || types.includes('integer');
  // Like kube-openapi, a string or array with a format is not type-checked against a non-numeric type.
  if (!numeric && format !== '' && (actual === 'string' || actual === 'array')) return;
  const matches =
    types.includes(actual) ||
    (actual === 'integer' && types.includes('number')) ||
    (actual === 'number' && types.includes('integer') && Number.isInteger(data));
  if (!matches && types.length > 0) {
    errors.push(
      fe.typeInvalid(fieldOf(path), actual, `${path} in body must be of type ${label}: ${goQuote(actual)}`),
    );
  }
}

function checkComposition(schema: JSONSchemaProps, data: unknown, path: string, errors: FieldError[]): void {
  // Composition failures are not openapi Validation errors, so apiextensions reports them
  // against a nil field path and an empty bad value.
  const summary = (text: string) => errors.push(fe.invalid('<nil>', '', `${goQuote(path)} ${text}`));
  if (schema.anyOf?.length) {
    const results = schema.anyOf.map((s) => branch(s, data, path));
    if (!results.some((r) => r.length === 0)) {
      summary('must validate at least one schema (anyOf)');
      errors.push(...fewest(results));
    }
  }
  if (schema.oneOf?.length) {
    const results = schema.oneOf.map((s) => branch(s, data, path));
    const valid = results.filter((r) => r.length === 0).length;
    if (valid !== 1) {
      summary(
        `must validate one and only one schema (oneOf). ${valid === 0 ? 'Found none valid' : `Found ${valid} valid alternatives`}`,
      );
      if (valid === 0) errors.push(...fewest(results));
    }
  }
  if (schema.allOf?.length) {
    const results = schema.allOf.map((s) => branch(s, data, path));
    for (const r of results) errors.push(...r);
    const valid = results.filter((r) => r.length === 0).length;
    if (valid !== results.length)
      summary(`must validate all the schemas (allOf)${valid === 0 ? '. None validated' : ''}`);
  }
  if (schema.not && branch(schema.not, data, path).length === 0)
    summary('must not validate the schema (not)');
}

function branch(schema: JSONSchemaProps, data: unknown, path: string): FieldError[] {
  const out: FieldError[] = [];
  validateNode(schema, data, path, out);
  return out;
}

/** kube-openapi reports the failing branch that matched best; fewest errors approximates that. */
function fewest(results: FieldError[][]): FieldError[] {
  return results.reduce((best, r) => (r.length < best.length ? r : best));
}

function checkString(schema: JSONSchemaProps, data: string, path: string, errors: FieldError[]): void {
  const field = fieldOf(path);
  if (
    schema.maxLength !== undefined &&
    data.length > schema.maxLength &&
    runeCount(data) > schema.maxLength
  ) {
    errors.push(fe.tooLong(field, schema.maxLength));
  }
  if (
    schema.minLength !== undefined &&
    (data.length < schema.minLength || runeCount(data) < schema.minLength)
  ) {
    errors.push(fe.invalid(field, data, `${path} in body should be at least ${schema.minLength} chars long`));
  }
  if (schema.pattern !== undefined) {
    const re = compileGoRegexp(schema.pattern);
    if (re && !re.test(data)) {
      errors.push(fe.invalid(field, data, `${path} in body should match '${schema.pattern}'`));
    }
  }
  if (schema.format && !matchesFormat(schema.format, data)) {
    errors.push(
      fe.typeInvalid(field, data, `${path} in body must be of type ${schema.format}: ${goQuote(data)}`),
    );
  }
}

function checkNumber(schema: JSONSchemaProps, data: number, path: string, errors: FieldError[]): void {
  const field = fieldOf(path);
  const factor = schema.multipleOf;
  if (factor !== undefined && factor > 0) {
    const quotient = factor < 1 ? (1 / factor) * data : data / factor;
    if (Math.abs(quotient - Math.round(quotient)) > 1e-9 * Math.max(1, Math.abs(quotient))) {
      errors.push(fe.invalid(field, data, `${path} in body should be a multiple of ${goFloat(factor)}`));
    }
  }
  const max = schema.maximum;
  if (max !== undefined && (schema.exclusiveMaximum ? data >= max : data > max)) {
    const rel = schema.exclusiveMaximum ? 'less than' : 'less than or equal to';
    errors.push(fe.invalid(field, data, `${path} in body should be ${rel} ${goFloat(max)}`));
  }
  const min = schema.minimum;
  if (min !== undefined && (schema.exclusiveMinimum ? data <= min : data < min)) {
    const rel = schema.exclusiveMinimum ? 'greater than' : 'greater than or equal to';
    errors.push(fe.invalid(field, data, `${path} in body should be ${rel} ${goFloat(min)}`));
  }
  if (schema.format && !integerFitsFormat(schema.format, data)) {
    errors.push(
      fe.typeInvalid(
        field,
        data,
        `${path} in body must be of type ${schema.format}: ${goQuote(String(data))}`,
      ),
    );
  }
}

function checkArray(schema: JSONSchemaProps, data: unknown[], path: string, errors: FieldError[]): void {
  const field = fieldOf(path);
  if (schema.items) {
    for (let i = 0; i < data.length; i++) validateNode(schema.items, data[i], `${path}[${i}]`, errors);
  }
  if (schema.minItems !== undefined && data.length < schema.minItems) {
    errors.push(
      fe.invalid(field, data.length, `${path} in body should have at least ${schema.minItems} items`),
    );
  }
  if (schema.maxItems !== undefined && data.length > schema.maxItems) {
    errors.push(fe.tooMany(field, data.length, schema.maxItems));
  }
  if (schema.uniqueItems && hasDuplicates(data)) {
    errors.push(fe.invalid(field, '', `${path} in body shouldn't contain duplicates`));
  }
}

function hasDuplicates(items: unknown[]): boolean {
  const seen = new Set<string>();
  for (const item of items) {
    const key =
      typeof item === 'object' && item !== null ? sortedJson(item) : `${typeof item}:${String(item)}`;
    if (seen.has(key)) return true;
    seen.add(key);
  }
  return false;
}

function checkEnum(schema: JSONSchemaProps, data: unknown, path: string, errors: FieldError[]): void {
  const allowed = schema.enum;
  if (!allowed || allowed.length === 0 || allowed.some((v) => deepEqual(v, data))) return;
  const labels = allowed.map((v) => (typeof v === 'string' ? v : sortedJson(v)));
  errors.push(fe.notSupported(fieldOf(path), data, labels));
}

function checkObject(
  schema: JSONSchemaProps,
  data: Record<string, unknown>,
  path: string,
  errors: FieldError[],
) {
  const field = fieldOf(path);
  const keys = Object.keys(data);
  // kube-openapi stops checking an object whose property count is out of bounds.
  if (schema.minProperties !== undefined && keys.length < schema.minProperties) {
    errors.push(
      fe.invalid(
        field,
        keys.length,
        `${path} in body should have at least ${schema.minProperties} properties`,
      ),
    );
    return;
  }
  if (schema.maxProperties !== undefined && keys.length > schema.maxProperties) {
    errors.push(fe.tooMany(field, keys.length, schema.maxProperties));
    return;
  }
  const properties = schema.properties;
  const additional = schema.additionalProperties;
  if (additional !== undefined) {
    for (const key of keys) {
      if (properties && Object.prototype.hasOwnProperty.call(properties, key)) continue;
      if (additional === false) {
        errors.push(fe.invalid(field, key, `${path}.${key} in body is a forbidden property`));
      } else if (typeof additional === 'object') {
        validateNode(additional, data[key], `${path}.${key}`, errors);
      }
    }
  }
  if (properties) {
    for (const name in properties) {
      if (Object.prototype.hasOwnProperty.call(data, name))
        validateNode(properties[name]!, data[name], child(path, name), errors);
    }
  }
  for (const name of schema.required ?? []) {
    if (!Object.prototype.hasOwnProperty.call(data, name))
      errors.push(fe.required(fieldOf(`${path}.${name}`)));
  }
}
