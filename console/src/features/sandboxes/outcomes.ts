// Sandbox answers through the shared toast handler (spec 1 §8): the operations whose statuses
// have texts of their own, the rest as every other call.
import { ApiError } from '../../api/client';
import i18n from '../../i18n';
import { toastFailure, toastSuccess } from '../toasts/outcome';
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

/** The toast a failed sandbox call gets: its operation's own text for that status, else the shared one. */
export function sandboxFailureToast(operation: Operation, error: unknown) {
  const special = error instanceof ApiError ? SPECIAL[operation]?.[error.status] : undefined;
  if (!special) return null;
  const t = i18n.getFixedT(null, 'sandboxes');
  return { title: t(special.title), text: t(special.text), type: 'danger' as const };
}

export function toastSandboxFailure(operation: Operation, error: unknown) {
  const special = sandboxFailureToast(operation, error);
  if (special) toasts.show(special);
  else toastFailure(error);
}

export const toastSandboxSuccess = (operation: Operation) =>
  toastSuccess(i18n.t(`sandboxes:success.${operation}`));
