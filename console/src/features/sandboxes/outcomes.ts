// Sandbox answers through the shared toast handler (spec 1 §8): the operations whose statuses
// have texts of their own, the rest as every other call.
import { ApiError } from '../../api/client';
import i18n from '../../i18n';
import { failureToast, toastSuccess } from '../toasts/outcome';
import { toasts } from '../toasts/toast-store';

export type Operation = 'create' | 'update' | 'rename' | 'variables' | 'clone' | 'delete';

const SPECIAL: Partial<Record<Operation, Record<number, { title: string; text: string }>>> = {
  create: { 400: { title: 'requestFail', text: 'invalidSandboxDot' } },
  update: {
    400: { title: 'common:requestFailed', text: 'invalidSandbox' },
    409: { title: 'common:requestFailed', text: 'inUseByWorkflows' },
  },
  variables: { 409: { title: 'common:requestFailed', text: 'inUseByWorkflows' } },
  rename: { 409: { title: 'common:requestFailed', text: 'inUseByWorkflows' } },
};

// Spec 1 §8's 'Other toasts' for a sandbox that could not be saved: the title, and the text when the
// server gave no reason of its own (a 5xx).
const SAVE_FAILED: Partial<Record<Operation, { title: string; text: string }>> = {
  create: { title: 'notSaved', text: 'errorSaving' },
  update: { title: 'updateError', text: 'updateFailed' },
};

const isConnectionError = (error: unknown) => error instanceof ApiError && error.code === 'network';

/**
 * The toast a failed sandbox call gets: its operation's own text for that status; for a save the
 * sandbox's own title (and text when the server gave no reason); else the shared one.
 */
export function sandboxFailureToast(operation: Operation, error: unknown) {
  const t = i18n.getFixedT(null, 'sandboxes');
  const special = error instanceof ApiError ? SPECIAL[operation]?.[error.status] : undefined;
  if (special) return { title: t(special.title), text: t(special.text), type: 'danger' as const };
  const saveFailed = SAVE_FAILED[operation];
  if (saveFailed && !isConnectionError(error))
    return failureToast(error, t(saveFailed.title), t(saveFailed.text));
  return failureToast(error);
}

export const toastSandboxFailure = (operation: Operation, error: unknown) =>
  toasts.show(sandboxFailureToast(operation, error));

export const toastSandboxSuccess = (operation: Operation) =>
  toastSuccess(i18n.t(`sandboxes:success.${operation}`));
