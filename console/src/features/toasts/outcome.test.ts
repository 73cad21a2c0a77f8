import { describe, expect, it } from 'vitest';
import { ApiError } from '../../api/client';
import { failureToast } from './outcome';

describe('failure toasts (spec 1 §8)', () => {
  it.each([
    [new ApiError(422, 'invalid', 'name: must not be blank'), 'Request failed', 'name: must not be blank'],
    [new ApiError(403, 'forbidden', 'Forbidden'), 'Request failed', 'Forbidden'],
    [
      new ApiError(500, 'internal', 'stack trace here'),
      'Request failed',
      'Something went wrong, please retry.',
    ],
    [new ApiError(502, 'unknown', ''), 'Request failed', 'Something went wrong, please retry.'],
    [
      new ApiError(500, 'network', 'Failed to fetch'),
      'Connection Error',
      'Something went wrong, please retry.',
    ],
    [new Error('boom'), 'Request failed', 'Something went wrong, please retry.'],
  ])('%s → %s / %s', (error, title, text) => {
    expect(failureToast(error)).toEqual({ title, text, type: 'danger' });
  });

  it('keeps an operation-specific title', () => {
    expect(failureToast(new ApiError(400, 'x', 'bad'), 'Registration error').title).toBe(
      'Registration error',
    );
  });
});
