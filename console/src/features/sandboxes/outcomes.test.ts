import { describe, expect, it } from 'vitest';
import { ApiError } from '../../api/client';
import { sandboxFailureToast, type Operation } from './outcomes';

const fault = (status: number, message = 'the reason') => new ApiError(status, 'x', message);
const network = new ApiError(500, 'network', 'Failed to fetch');

describe('sandbox failure toasts (spec 1 §8)', () => {
  it.each<[Operation, unknown, string, string]>([
    ['create', fault(400), 'Request fail', 'Invalid sandbox.'],
    ['create', fault(500), 'Sandbox not saved', 'Error saving the sandbox, try again.'],
    ['create', fault(422, 'name: must not be blank'), 'Sandbox not saved', 'name: must not be blank'],
    ['update', fault(400), 'Request failed', 'Invalid sandbox'],
    ['update', fault(409), 'Request failed', "Sandbox can't be update because in use in external workflows."],
    ['update', fault(503), 'Update error', 'Update failed. Please, retry'],
    ['update', fault(403, 'Forbidden'), 'Update error', 'Forbidden'],
    ['update', network, 'Connection Error', 'Something went wrong, please retry.'],
    ['rename', fault(500), 'Request failed', 'Something went wrong, please retry.'],
    [
      'variables',
      fault(409),
      'Request failed',
      "Sandbox can't be update because in use in external workflows.",
    ],
    ['delete', fault(404, 'sandbox not found'), 'Request failed', 'sandbox not found'],
  ])('%s, %o → %s / %s', (operation, error, title, text) => {
    expect(sandboxFailureToast(operation, error)).toEqual({ title, text, type: 'danger' });
  });
});
