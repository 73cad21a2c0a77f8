import nodemailer from 'nodemailer';
import type { Knex } from 'knex';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/** Every mail of the platform (verification, reset, invitation, run notifications) goes through this. */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

/** SMTP when a URL is configured (smtp://user:pass@host:port), otherwise rows in the `outbox` table. */
export function createMailer(options: { db: Knex; smtpUrl?: string | undefined; from: string }): Mailer {
  if (options.smtpUrl) {
    const transport = nodemailer.createTransport(options.smtpUrl);
    return {
      async send(message) {
        await transport.sendMail({ from: options.from, ...message });
      },
    };
  }
  return {
    async send(message) {
      await options.db('outbox').insert(message);
    },
  };
}
