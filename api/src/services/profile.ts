import { fileTypeFromBuffer } from 'file-type';
import type { Knex } from 'knex';
import { conflict, notFound, unprocessable } from '../errors.js';
import type { Caller } from './callers.js';
import type { EventService } from './events.js';
import { readCachesFor } from './read-caches.js';

export const AVATAR_MAX_BYTES = 512 * 1024;
const AVATAR_TYPES = new Set(['image/png', 'image/jpeg']);

export interface Contact {
  name?: string | undefined;
  email?: string | undefined;
  phone?: string | undefined;
}

/** What a person keeps for themselves: tags, contacts, avatar, and the feedback they send. */
export function createProfileService(db: Knex, events: EventService) {
  const caches = readCachesFor(db);
  /** A person's changes to their own settings are audited as `users` `update` events. */
  const recordOwnChange = (caller: Caller, what: string) =>
    events.record(caller, {
      kind: 'users',
      action: 'update',
      subject: caller.email,
      organizationId: caller.currentOrganizationId,
      data: [{ [what]: true }],
    });

  return {
    async tags(userId: string): Promise<{ label: string; color: string }[]> {
      return db('tags').where({ user_id: userId }).orderBy('id').select('label', 'color');
    },

    /** Colour (case-insensitively) and label must be unused by the person's other tags. */
    async addTag(caller: Caller, label: string, color: string): Promise<{ label: string; color: string }> {
      const clash = await db('tags')
        .where({ user_id: caller.userId })
        .andWhere((q) => q.whereRaw('lower(color) = lower(?)', [color]).orWhere({ label }))
        .first();
      if (clash) throw conflict('Color or label already used in another tag');
      const [tag] = await db('tags')
        .insert({ user_id: caller.userId, label, color: color.toLowerCase() })
        .returning(['label', 'color']);
      caches.wrote(db, 'tags');
      await recordOwnChange(caller, 'tags');
      return tag;
    },

    async contacts(userId: string): Promise<Contact[]> {
      return (await db('contacts').where({ user_id: userId }).first())?.contacts ?? [];
    },

    async setContacts(caller: Caller, contacts: Contact[]): Promise<void> {
      await db('contacts')
        .insert({ user_id: caller.userId, contacts: JSON.stringify(contacts) })
        .onConflict('user_id')
        .merge();
      caches.wrote(db, 'contacts');
      await recordOwnChange(caller, 'contacts');
    },

    async avatar(userId: string): Promise<{ bytes: Buffer; type: string }> {
      const row = await db('users').where({ id: userId }).first('avatar', 'avatar_type');
      if (!row?.avatar) throw notFound('Avatar');
      return { bytes: row.avatar, type: row.avatar_type };
    },

    /** Only png and jpeg, recognized by their content (not by a name or a declared type). */
    async setAvatar(caller: Caller, userId: string, bytes: Buffer): Promise<{ type: string; size: number }> {
      if (bytes.length === 0) throw unprocessable('file_body: empty');
      if (bytes.length > AVATAR_MAX_BYTES)
        throw unprocessable(`file_body: larger than ${AVATAR_MAX_BYTES} bytes`, 'too_large');
      const sniffed = await fileTypeFromBuffer(bytes);
      if (!sniffed || !AVATAR_TYPES.has(sniffed.mime))
        throw unprocessable('file_body: only png and jpeg images', 'invalid_type');
      await db('users').where({ id: userId }).update({ avatar: bytes, avatar_type: sniffed.mime });
      caches.wrote(db, 'users');
      await events.record(caller, {
        kind: 'users',
        action: 'update',
        subject: userId,
        organizationId: caller.currentOrganizationId,
        data: [{ avatar: true }],
      });
      return { type: sniffed.mime, size: bytes.length };
    },

    async sendFeedback(caller: Caller, subject: string, content: string): Promise<void> {
      await db('feedback').insert({ user_id: caller.userId, subject, content });
      await recordOwnChange(caller, 'feedback');
    },

    /** Own preferences (PUT /preferences/user) are audited like the rest of the profile. */
    recordOwnChange,
  };
}

export type ProfileService = ReturnType<typeof createProfileService>;
