import { ApiError } from '../../api/client';
import i18n from '../../i18n';
import { toasts } from './toast-store';

/**
 * The shared handler of API answers (spec 1 §8): 'Request success' with the operation's
 * text; 'Request failed' with the server's reason for a 4xx, the generic 'Something went
 * wrong, please retry.' for a 5xx (no server internals), 'Connection Error' when there
 * was no answer at all.
 */
export function failureToast(error: unknown, title?: string, serverFault?: string) {
  const t = i18n.t.bind(i18n);
  if (error instanceof ApiError && error.code === 'network')
    return {
      title: t('common:connectionError'),
      text: t('common:somethingWentWrong'),
      type: 'danger' as const,
    };
  const clientFault = error instanceof ApiError && error.status < 500 && error.message;
  return {
    title: title ?? t('common:requestFailed'),
    text: clientFault ? error.message : (serverFault ?? t('common:somethingWentWrong')),
    type: 'danger' as const,
  };
}

export const toastFailure = (error: unknown, title?: string, serverFault?: string) =>
  toasts.show(failureToast(error, title, serverFault));

export const toastSuccess = (text: string) =>
  toasts.show({ title: i18n.t('common:requestSuccess'), text, type: 'success' });
