// Session and run answers through the shared toast handler (spec 2 §8).
import i18n from '../../i18n';
import { toastFailure, toastSuccess } from '../toasts/outcome';

export type SessionOperation = 'save' | 'clone' | 'delete' | 'start' | 'run';

export const toastSessionSuccess = (operation: SessionOperation) =>
  toastSuccess(i18n.t(`sessions:success.${operation}`));
export const toastSessionFailure = (error: unknown) => toastFailure(error);
