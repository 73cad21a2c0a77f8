// The `result` of the answers the console reads, taken from the OpenAPI document
// (api/openapi.yaml, generated from the API's route schemas): `npm run generate:client -w console`.

import type { operations } from './schema.gen';

type Success<O> = O extends { responses: { 200: infer R } }
  ? R
  : O extends { responses: { 201: infer R } }
    ? R
    : never;

/** The `result` of an operation's success answer. */
export type Result<K extends keyof operations> =
  Success<operations[K]> extends { content: { 'application/json': { result: infer R } } } ? R : never;

type Item<T> = T extends (infer I)[] ? I : never;

export type Me = Result<'getMe'>;
export type Role = NonNullable<Me['role']>;
export type Organization = NonNullable<Result<'getOrganization'>>;
export type Session = Result<'postLogin'>;
export type Invitation = NonNullable<Result<'getInviteToken'>>;
export type PlatformPreferences = Result<'getIlluminaPreferences'>;
/** The bot-check widget registration needs: its provider and public site key. */
export type BotCheckConfig = NonNullable<PlatformPreferences['bot_check']>;
export type AuditEvent = Item<Result<'getIlluminaEvents'>>;
export type OutboxMail = Item<Result<'getAdminOutbox'>>;
/** GET /notifications/new items; the bell also keeps realtime messages in this shape. */
export type Notification = Item<Result<'getNotificationsNew'>> & { seen?: boolean };
