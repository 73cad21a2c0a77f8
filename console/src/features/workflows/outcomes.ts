// Workflow answers through the shared toast handler (spec 2 §8).
import i18n from '../../i18n';
import { failureToast, toastSuccess } from '../toasts/outcome';
import { toasts } from '../toasts/toast-store';

export type Operation = 'create' | 'update' | 'rename' | 'clone' | 'delete' | 'visibility' | 'variables';

export const toastWorkflowSuccess = (operation: Operation) =>
  toastSuccess(i18n.t(`workflows:success.${operation}`));

export const toastWorkflowFailure = (error: unknown) => toasts.show(failureToast(error));

/** A failed save says the drawing is kept, with the server's reason (a spec 2 §5 message on 400). */
export function toastSaveFailure(error: unknown) {
  const shared = failureToast(error);
  toasts.show({ ...shared, text: i18n.t('workflows:saveFailed', { reason: shared.text }) });
}
