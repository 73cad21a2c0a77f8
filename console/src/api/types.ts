// The shapes of `result` the console reads (the OpenAPI document types requests; answers
// are documented as `{ result, status }`).

import type { operations } from './schema.gen';

/** GET /illumina/preferences (public), as api/openapi.yaml documents it. */
export type PlatformPreferences =
  operations['getIlluminaPreferences']['responses'][200]['content']['application/json']['result'];

/** The bot-check widget registration needs: its provider and public site key. */
export type BotCheckConfig = NonNullable<PlatformPreferences['bot_check']>;

export type Role = 'admin' | 'organization_admin' | 'group_admin' | 'user';

export interface Me {
  id: string;
  username: string;
  email: string;
  first_name: string;
  last_name: string;
  role: Role | null;
  uid: number;
  groups: { id: string; name: string }[];
  organizations: { id: string; name: string; role: Role }[];
  current_organization: string | null;
  preferences: { mail_notification: boolean };
  has_avatar: boolean;
}

export interface Organization {
  id: string;
  name: string;
  role?: Role;
  quota: { cpu: number; memory: number; disk: number };
}

export interface Session {
  access_token: string;
  refresh_token: string;
  url?: string | null;
}

/** GET /notifications/new items and realtime messages turned into the same shape. */
export interface Notification {
  id: number;
  title: string;
  type: string;
  text: string;
  timestamp: string;
  link: string | null;
  message_data: { action: string; uuid?: string; run_uuid?: string } | null;
  seen?: boolean;
}

/** A realtime message as sent on the websocket (spec 1 §3). */
export interface RealtimeMessage {
  id: number;
  message_title: string;
  message_type: string;
  message_text: string;
  message_data: string;
}

export interface AuditEvent {
  id: number;
  timestamp: string;
  organization_name: string;
  kind: string;
  action: string;
  subject: string;
  data: unknown[];
  user_name: string;
}

export interface Invitation {
  organization: string;
  user: string;
}

export interface OutboxMail {
  id: number;
  to: string;
  subject: string;
  text: string;
  created_at: string;
}
