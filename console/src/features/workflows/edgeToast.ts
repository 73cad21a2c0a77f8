import i18n from '../../i18n';
import { toasts } from '../toasts/toast-store';
import type { EdgeRefusal } from './graph/edges';

/** 'Invalid edge creation' with why (spec 2 §5, §8). */
export function toastRefusedEdge(why: EdgeRefusal) {
  const t = i18n.getFixedT(null, 'workflows');
  toasts.show({ title: t('edgeRefused.title'), text: t(`edgeRefused.${why}`), type: 'warning' });
}
