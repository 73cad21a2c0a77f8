import type { Knex } from 'knex';

export interface OutboxMail {
  id: number;
  to: string;
  subject: string;
  text: string;
  created_at: string;
}

/** The mails kept when no SMTP server is configured (see mailer.ts), newest first. */
export function createOutboxService(db: Knex) {
  return {
    async read(options: { to?: string | undefined; limit: number }): Promise<OutboxMail[]> {
      const rows = db('outbox')
        .orderBy('id', 'desc')
        .limit(options.limit)
        .select('id', 'to', 'subject', 'text', 'created_at');
      if (options.to) rows.whereRaw('lower("to") = lower(?)', [options.to]);
      return (await rows).map((row) => ({
        id: Number(row.id),
        to: row.to,
        subject: row.subject,
        text: row.text,
        created_at: new Date(row.created_at).toISOString(),
      }));
    },
  };
}
