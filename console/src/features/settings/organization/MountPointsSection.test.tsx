import { configure, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { stubApi, type ApiRoutes } from '../../../test-support/api-stub';
import { aMe } from '../../../test-support/fixtures';
import { stubWindowWidth } from '../../../test-support/media';
import { clearToasts, renderPage } from '../../../test-support/render';
import { currentOrganization } from '../clusters/testing';
import OrganizationSettingsPage from './OrganizationSettingsPage';

vi.setConfig({ testTimeout: 60_000 });
configure({ asyncUtilTimeout: 15_000 });

function open(extra: ApiRoutes = {}) {
  const calls = stubApi({
    'GET /me': () => ({ result: aMe({ role: 'admin' }) }),
    'GET /organization': () => ({
      result: currentOrganization({
        base_path: '/mnt/data',
        mount_points: ['/mnt/data/a'],
        safe_mount: true,
      }),
    }),
    ...extra,
  });
  renderPage(<OrganizationSettingsPage />, {
    url: '/settings/organization?section=mountPoints',
    path: '/settings/organization',
  });
  return calls;
}
const saves = (calls: ReturnType<typeof open>) =>
  calls.filter((c) => c.key === 'PUT /organizations/org-1/mount');

beforeEach(() => {
  stubWindowWidth(1400);
  clearToasts();
});
afterEach(() => vi.unstubAllGlobals());

describe('Organization Settings › Mount Points', () => {
  it('adds and removes rows, saves, and shows what the API stored', async () => {
    const calls = open({
      'PUT /organizations/org-1/mount': () => ({
        result: currentOrganization({
          base_path: '/mnt/data',
          mount_points: ['/mnt/data/b'],
          safe_mount: true,
        }),
      }),
    });
    const user = userEvent.setup();
    expect(await screen.findByLabelText('Base path')).toHaveValue('/mnt/data');
    expect(screen.getByLabelText('Mount point 1')).toHaveValue('/mnt/data/a');
    expect(screen.getByRole('switch', { name: 'Safe mount' })).toBeChecked();
    const save = screen.getByRole('button', { name: 'Save' });
    expect(save).toBeDisabled();

    await user.click(screen.getByRole('button', { name: 'Add mount point' }));
    await user.type(screen.getByLabelText('Mount point 2'), 'b//');
    await user.click(screen.getByRole('button', { name: 'Remove mount point 1' }));
    expect(screen.getAllByRole('listitem')).toHaveLength(1);
    await user.click(save);
    await waitFor(() => expect(saves(calls)).toHaveLength(1));
    expect(saves(calls)[0]!.body).toEqual({
      id: 'org-1',
      base_path: '/mnt/data',
      mount_points: ['b//'],
      safe_mount: true,
    });
    await waitFor(() => expect(screen.getByLabelText('Mount point 1')).toHaveValue('/mnt/data/b'));
    expect(await screen.findByText('Mount points saved.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Save' })).toBeDisabled();
  });

  it("shows the API's 422 message and keeps what was typed", async () => {
    const message = 'mount_points.0: /srv/x is outside the base path /mnt/data';
    const calls = open({
      'PUT /organizations/org-1/mount': () => ({ status: 422, code: 'unprocessable', error: message }),
    });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('switch', { name: 'Safe mount' }));
    await user.clear(screen.getByLabelText('Mount point 1'));
    await user.type(screen.getByLabelText('Mount point 1'), '/srv/x');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(saves(calls)).toHaveLength(1));
    expect(saves(calls)[0]!.body).toMatchObject({ mount_points: ['/srv/x'], safe_mount: false });
    expect(await screen.findByRole('alert')).toHaveTextContent(message);
    expect(screen.getByLabelText('Mount point 1')).toHaveValue('/srv/x');
  });
});
