import { ApiException } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { isAlreadyExists, isConflict, isNotFound, statusCode } from './errors.js';

const status = (code: number, reason?: string) =>
  new ApiException(code, 'failed', reason ? JSON.stringify({ kind: 'Status', code, reason }) : '', {});

describe('statusCode', () => {
  it.each([
    ['an ApiException', status(404), 404],
    ['an older error with statusCode', { statusCode: 409 }, 409],
    ['a plain error', new Error('boom'), undefined],
    ['undefined', undefined, undefined],
    ['a non-numeric code', { code: 'ECONNRESET' }, undefined],
  ])('%s', (_what, error, expected) => {
    expect(statusCode(error)).toBe(expected);
  });
});

describe('predicates', () => {
  it.each([
    ['404', status(404, 'NotFound'), { notFound: true, conflict: false, exists: false }],
    ['409 Conflict', status(409, 'Conflict'), { notFound: false, conflict: true, exists: false }],
    ['409 AlreadyExists', status(409, 'AlreadyExists'), { notFound: false, conflict: false, exists: true }],
    ['409 without a body', status(409), { notFound: false, conflict: true, exists: true }],
    ['500', status(500, 'InternalError'), { notFound: false, conflict: false, exists: false }],
  ])('%s', (_what, error, expected) => {
    expect({
      notFound: isNotFound(error),
      conflict: isConflict(error),
      exists: isAlreadyExists(error),
    }).toEqual(expected);
  });
});
