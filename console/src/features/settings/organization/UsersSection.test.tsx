import { configure, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Role } from '../../../api/answers';
import { stubApi } from '../../../test-support/api-stub';
import { aMe } from '../../../test-support/fixtures';
import { stubWindowWidth } from '../../../test-support/media';
import { clearToasts, renderPage } from '../../../test-support/render';
import { currentOrganization } from '../clusters/testing';
import OrganizationSettingsPage from './OrganizationSettingsPage';

vi.setConfig({ testTimeout: 60_000 });
configure({ asyncUtilTimeout: 15_000 });

beforeEach(() => {
  stubWindowWidth(1400);
  clearToasts();
});
afterEach(() => vi.unstubAllGlobals());

describe('Organization Settings › Users', () => {
  it.each<[Role, boolean]>([
    ['admin', true],
    ['organization_admin', false],
  ])(
    '%s invites to the current organization’s groups; chooses the organization: %s',
    async (role, chooses) => {
      const calls = stubApi({
        'GET /me': () => ({ result: aMe({ role }) }),
        'GET /admin/users/organization': () => ({ result: [] }),
        'GET /group': () => ({ result: [] }),
        'GET /organizations': () => ({
          result: [currentOrganization({ id: 'org-1' }), currentOrganization({ id: 'org-2', name: 'Looms' })],
        }),
      });
      renderPage(<OrganizationSettingsPage />, {
        url: '/settings/organization?section=users',
        path: '/settings/organization',
      });
      expect(await screen.findByRole('table', { name: 'Users' })).toBeInTheDocument();
      await userEvent.setup().click(screen.getByRole('button', { name: 'Invite new User' }));
      const dialog = await screen.findByRole('dialog', { name: 'Invite new users' });
      // Spec 3 §6: only the super admin chooses the organization when inviting.
      expect(Boolean(within(dialog).queryByLabelText('Organization'))).toBe(chooses);
      // This section offers the current organization's groups, also to the super admin.
      await waitFor(() =>
        expect(calls.filter((c) => c.key === 'GET /group').map((c) => c.query.get('organization'))).toContain(
          'org-1',
        ),
      );
      expect(calls.filter((c) => c.key === 'GET /group' && !c.query.get('organization'))).toHaveLength(0);
    },
  );
});
