import type { Me } from '../../api/types';

/** A signed-in person as GET /me answers (tests only). */
export const ME: Me = {
  id: '6f1c1c1e-5d4b-4d0e-9a55-0a3c1f1d2b3c',
  username: 'ada@example.com',
  email: 'ada@example.com',
  first_name: 'Ada',
  last_name: 'Lovelace',
  role: 'organization_admin',
  uid: 1000,
  groups: [],
  organizations: [
    { id: 'org-1', name: 'Analytical Engines', role: 'organization_admin' },
    { id: 'org-2', name: 'Difference Club', role: 'user' },
  ],
  current_organization: 'org-1',
  preferences: { mail_notification: false },
  has_avatar: false,
};
