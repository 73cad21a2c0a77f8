import type { QueryClient } from '@tanstack/react-query';
import { addNotification } from '../../../api/queries';
import type { Notification } from '../../../api/answers';
import type { RealtimeMessage } from './realtime-client';
import { toasts } from '../../toasts/toast-store';
import { applyRunMessage, runDataOf } from '../../runs/realtime';

type NotificationData = NonNullable<Notification['message_data']>;

/**
 * message_data is a JSON string `{ action, data: { uuid, run_uuid } }` (spec 1 §3), or
 * empty. Flattened to the bell's `{ action, uuid, run_uuid }`; null when there is none.
 */
export function parseMessageData(raw: unknown): NotificationData | null {
  let value: unknown = raw;
  if (typeof raw === 'string') {
    if (!raw.trim()) return null;
    try {
      value = JSON.parse(raw);
    } catch {
      return null;
    }
  }
  if (!value || typeof value !== 'object') return null;
  const { action, data, uuid, run_uuid } = value as {
    action?: unknown;
    data?: { uuid?: unknown; run_uuid?: unknown } | null;
    uuid?: unknown;
    run_uuid?: unknown;
  };
  const text = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
  const result: NotificationData = { action: text(action) ?? '' };
  const id = text(data?.uuid) ?? text(uuid);
  const run = text(data?.run_uuid) ?? text(run_uuid);
  if (id) result.uuid = id;
  if (run) result.run_uuid = run;
  return result.action || id || run ? result : null;
}

/**
 * Where a notification leads (spec 1 §2.1): the run dashboard when the data has a
 * run_uuid, otherwise a screen derived from the action; null when there is none.
 */
export function notificationLink(data: NotificationData | null | undefined): string | null {
  if (!data) return null;
  if (data.uuid && data.run_uuid) return `/dashboard/session/${data.uuid}/${data.run_uuid}`;
  const screen = SCREEN_OF_ACTION[data.action.toLowerCase()];
  if (!screen) return null;
  return screen.includes(':uuid') ? (data.uuid ? screen.replace(':uuid', data.uuid) : null) : screen;
}

// Actions name a kind, singular or as the audit log's plural. Membership and quota
// changes are listed on the person's profile.
const SCREEN_OF_ACTION: Record<string, string> = {
  sandbox: '/sandbox/view/:uuid',
  sandboxes: '/sandbox/view/:uuid',
  workflow: '/workflow/view/:uuid',
  workflows: '/workflow/view/:uuid',
  session: '/schedule/:uuid',
  sessions: '/schedule/:uuid',
  group: '/profile',
  groups: '/profile',
  quota: '/profile',
  organization: '/profile',
  organizations: '/profile',
};

/** A realtime message with data, in the shape of the bell's list; null when it has no data. */
export function toNotification(message: RealtimeMessage, now: Date = new Date()): Notification | null {
  const data = parseMessageData(message.message_data);
  if (!data) return null;
  return {
    id: message.id,
    title: message.message_title,
    type: message.message_type || 'primary',
    text: message.message_text,
    timestamp: now.toISOString(),
    link: notificationLink(data),
    message_data: data,
    seen: false,
  };
}

/** Spec 1 §4: every message raises a toast; one with data also joins the bell's list. */
export function handleRealtimeMessage(client: QueryClient, message: RealtimeMessage) {
  toasts.show({
    title: message.message_title ?? '',
    text: message.message_text ?? '',
    type: message.message_type,
  });
  const notification = toNotification(message);
  if (notification) addNotification(client, notification);
  // Run messages also move the run and its session in the cache (spec 2 §4).
  const run = runDataOf(message.message_data);
  if (run) applyRunMessage(client, run);
}
