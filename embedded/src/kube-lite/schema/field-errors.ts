/** Constructors for metav1.StatusCause entries with apimachinery's field.Error wording. */
import type { FieldError } from '../types.js';
import { badValue, goQuote } from './go-format.js';

export function required(field: string, detail = ''): FieldError {
  return { reason: 'FieldValueRequired', field, message: withDetail('Required value', detail) };
}

export function invalid(field: string, value: unknown, detail: string): FieldError {
  return {
    reason: 'FieldValueInvalid',
    field,
    message: withDetail(`Invalid value: ${badValue(value)}`, detail),
  };
}

export function typeInvalid(field: string, value: unknown, detail: string): FieldError {
  return {
    reason: 'FieldValueTypeInvalid',
    field,
    message: withDetail(`Invalid value: ${badValue(value)}`, detail),
  };
}

export function notSupported(field: string, value: unknown, supported: string[]): FieldError {
  const detail = supported.length ? `supported values: ${supported.map(goQuote).join(', ')}` : '';
  return {
    reason: 'FieldValueNotSupported',
    field,
    message: withDetail(`Unsupported value: ${badValue(value)}`, detail),
  };
}

/** field.TooLong: the value is omitted and the limit is worded in bytes even for rune counts. */
export function tooLong(field: string, max: number): FieldError {
  const detail =
    max >= 0 ? `may not be more than ${max} ${max === 1 ? 'byte' : 'bytes'}` : 'value is too long';
  return { reason: 'FieldValueTooLong', field, message: `Too long: ${detail}` };
}

export function tooMany(field: string, actual: number, max: number): FieldError {
  const detail = max >= 0 ? `must have at most ${max} ${max === 1 ? 'item' : 'items'}` : 'has too many items';
  const head = actual >= 0 ? `Too many: ${actual}` : 'Too many';
  return { reason: 'FieldValueTooMany', field, message: `${head}: ${detail}` };
}

export function duplicate(field: string, value: unknown): FieldError {
  return { reason: 'FieldValueDuplicate', field, message: `Duplicate value: ${badValue(value)}` };
}

export function forbidden(field: string, detail: string): FieldError {
  return { reason: 'FieldValueForbidden', field, message: withDetail('Forbidden', detail) };
}

function withDetail(head: string, detail: string): string {
  return detail ? `${head}: ${detail}` : head;
}
