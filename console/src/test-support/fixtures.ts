// Answers of the API as the console reads them (tests only).
import type { Me, Notification } from '../api/answers';

/** A signed-in person as GET /me answers, with `overrides`. */
export function aMe(overrides: Partial<Me> = {}): Me {
  return {
    id: '6f1c1c1e-5d4b-4d0e-9a55-0a3c1f1d2b3c',
    username: 'ada@example.com',
    email: 'ada@example.com',
    first_name: 'Ada',
    last_name: 'Lovelace',
    role: 'user',
    uid: 1000,
    groups: [],
    organizations: [
      { id: 'org-1', name: 'Analytical Engines', role: 'organization_admin' },
      { id: 'org-2', name: 'Difference Labs', role: 'user' },
    ],
    current_organization: 'org-1',
    preferences: { mail_notification: false },
    quota: [],
    tags: [],
    contacts: [],
    has_avatar: false,
    ...overrides,
  };
}

/** An unseen notification number `id`, with `overrides`. */
export function aNotification(id: number, overrides: Partial<Notification> = {}): Notification {
  return {
    id,
    title: `Run ${id} finished`,
    type: 'success',
    text: `Session ${id} ended`,
    timestamp: new Date().toISOString(),
    link: null,
    message_data: null,
    seen: false,
    ...overrides,
  };
}
