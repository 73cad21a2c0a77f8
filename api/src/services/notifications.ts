import type { Knex } from 'knex';
import type { Mailer } from './mailer.js';

/** Spec 1 §3: notification data links to a run or a resource. */
export interface NotificationData {
  action: string;
  uuid?: string;
  run_uuid?: string;
}

export interface NewNotification {
  userId: string;
  organizationId: string | null;
  title: string;
  type?: string; // a colour name: primary, success, warning, danger
  text: string;
  data?: NotificationData;
  /** Also e-mail it (run notifications), when the person keeps mail_notification on. */
  mail?: boolean;
}

/** The realtime message of spec 1 §3; message_data is a JSON string. */
export interface RealtimeMessage {
  id: number;
  message_title: string;
  message_type: string;
  message_text: string;
  message_data: string;
}

interface NotificationRow {
  id: string | number;
  title: string;
  type: string;
  text: string;
  data: NotificationData | null;
  created_at: string | Date;
}

export function toRealtimeMessage(row: NotificationRow): RealtimeMessage {
  return {
    id: Number(row.id),
    message_title: row.title,
    message_type: row.type,
    message_text: row.text,
    message_data: row.data
      ? JSON.stringify({
          action: row.data.action,
          data: { uuid: row.data.uuid, run_uuid: row.data.run_uuid },
        })
      : '',
  };
}

/** Delivery to connected sockets; the realtime server implements it. */
export interface RealtimePublisher {
  publish(userId: string, message: RealtimeMessage): void;
  /** Whether the person has a socket open here. */
  connected?(userId: string): boolean;
  /** Sends every open socket what it may have missed (after messages between processes were lost). */
  resync?(): void;
}

export function createNotificationService(
  db: Knex,
  mailer: Mailer,
  publisher: () => RealtimePublisher | undefined,
) {
  return {
    /** Stores the notification, then pushes it to the person's open sockets. */
    async notify(notification: NewNotification): Promise<void> {
      const [row] = await db('notifications')
        .insert({
          user_id: notification.userId,
          organization_id: notification.organizationId,
          title: notification.title,
          type: notification.type ?? 'primary',
          text: notification.text,
          data: notification.data ? JSON.stringify(notification.data) : null,
        })
        .returning('*');
      publisher()?.publish(notification.userId, toRealtimeMessage(row));
      if (notification.mail) {
        const user = await db('users').where({ id: notification.userId }).first('email', 'mail_notification');
        if (user?.mail_notification) {
          await mailer.send({ to: user.email, subject: notification.title, text: `${notification.text}\n` });
        }
      }
    },

    /** GET /notifications/new: the unseen ones of the current organization, then marked seen. */
    async takeNew(userId: string, organizationId: string | null) {
      const rows: (NotificationRow & { id: string })[] = await db('notifications')
        .where({ user_id: userId })
        .whereNull('seen_at')
        .andWhere((q) => q.whereNull('organization_id').orWhere('organization_id', organizationId ?? null))
        .orderBy('id', 'desc');
      if (rows.length)
        await db('notifications')
          .whereIn(
            'id',
            rows.map((r) => r.id),
          )
          .update({ seen_at: db.fn.now() });
      return rows.map((row) => ({
        id: Number(row.id),
        title: row.title,
        type: row.type,
        text: row.text,
        timestamp: new Date(row.created_at).toISOString(),
        link:
          row.data?.run_uuid && row.data.uuid
            ? `/dashboard/session/${row.data.uuid}/${row.data.run_uuid}`
            : null,
        message_data: row.data,
      }));
    },

    /** What a socket missed: every notification of the person not yet acknowledged, oldest first. */
    async undelivered(userId: string): Promise<RealtimeMessage[]> {
      const rows = await db('notifications')
        .where({ user_id: userId })
        .whereNull('delivered_at')
        .orderBy('id', 'asc');
      return rows.map(toRealtimeMessage);
    },

    /** One notification of the person as a realtime message (null when there is none). */
    async message(userId: string, id: number): Promise<RealtimeMessage | null> {
      const row = await db('notifications').where({ user_id: userId, id }).first();
      return row ? toRealtimeMessage(row) : null;
    },

    /**
     * The client's `Ok`: delivered, and seen — the console has shown it (toast and bell),
     * so GET /notifications/new after a reload does not bring it back as new.
     */
    async acknowledge(userId: string, id: number): Promise<void> {
      await db('notifications')
        .where({ user_id: userId, id })
        .update({ delivered_at: db.fn.now(), seen_at: db.raw('coalesce(seen_at, now())') });
    },
  };
}

export type NotificationService = ReturnType<typeof createNotificationService>;
