import { configure, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { stubApi, type ApiRoutes } from '../../../test-support/api-stub';
import { aMe } from '../../../test-support/fixtures';
import { stubWindowWidth } from '../../../test-support/media';
import { clearToasts, renderPage } from '../../../test-support/render';
import { clusterItem } from '../clusters/testing';
import SuperSettingsPage from './SuperSettingsPage';

vi.setConfig({ testTimeout: 60_000 });
configure({ asyncUtilTimeout: 15_000 });

const SAVED = {
  allow_new_organization: true,
  disable_provisioning: false,
  registry: { url: 'https://registry.example.org', username: 'robot', password: '********' },
};

function open(tab: string, extra: ApiRoutes = {}) {
  const calls = stubApi({
    'GET /me': () => ({ result: aMe({ role: 'admin' }) }),
    'GET /illumina/configuration': () => ({ result: SAVED }),
    'GET /organizations': () => ({ result: [] }),
    ...extra,
  });
  renderPage(<SuperSettingsPage />, { url: `/settings/admin?tab=${tab}`, path: '/settings/admin' });
  return calls;
}

beforeEach(() => {
  stubWindowWidth(1400);
  clearToasts();
});
afterEach(() => vi.unstubAllGlobals());

describe('Super Settings › Miscellaneous', () => {
  it('shows the saved preferences, saves only when changed, and sends the password only when typed', async () => {
    const calls = open('miscellaneous', {
      'POST /illumina/configuration': () => ({ result: { ...SAVED, disable_provisioning: true } }),
    });
    const user = userEvent.setup();
    const allow = await screen.findByRole('checkbox', { name: 'Allow new organization' });
    expect(allow).toBeChecked();
    expect(screen.getByLabelText('URL')).toHaveValue('https://registry.example.org');
    expect(screen.getByLabelText('Username')).toHaveValue('robot');
    expect(screen.getByLabelText('Password')).toHaveValue('');
    const disable = screen.getByRole('switch', {
      name: 'Disable the provisioning for all the organizations',
    });
    expect(disable).not.toBeChecked();
    const save = screen.getByRole('button', { name: 'Save' });
    expect(save).toBeDisabled();

    await user.click(disable);
    expect(save).toBeEnabled();
    await user.click(save);
    await waitFor(() => expect(calls.some((c) => c.key === 'POST /illumina/configuration')).toBe(true));
    expect(calls.find((c) => c.key === 'POST /illumina/configuration')!.body).toEqual({
      allow_new_organization: true,
      disable_provisioning: true,
      registry: { url: 'https://registry.example.org', username: 'robot' },
    });
    expect(await screen.findByText('Preferences saved.')).toBeInTheDocument();
  });

  it('sends a typed password and shows the refusal', async () => {
    const calls = open('miscellaneous', {
      'POST /illumina/configuration': () => ({
        status: 422,
        code: 'unprocessable',
        error: 'registry.url: too long',
      }),
    });
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('Password'), 's3cret');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(calls.some((c) => c.key === 'POST /illumina/configuration')).toBe(true));
    expect(calls.find((c) => c.key === 'POST /illumina/configuration')!.body).toMatchObject({
      registry: { password: 's3cret' },
    });
    expect(await screen.findByText(/too long/)).toBeInTheDocument();
  });
});

describe('Super Settings › Cluster Managers', () => {
  it('lists every cluster manager and opens the super admin flyout', async () => {
    open('cluster_managers', {
      'GET /cluster': () => ({
        result: [
          clusterItem({ id: 'cm-1', name: 'Rack 1' }),
          clusterItem({ id: 'cm-2', name: 'Rack 2', organizations: [] }),
        ],
      }),
    });
    const table = await screen.findByRole('table', { name: 'Cluster managers' });
    expect(within(table).getByText('Rack 1')).toBeInTheDocument();
    expect(within(table).getByText('Rack 2')).toBeInTheDocument();
    await userEvent.setup().click(within(table).getByRole('button', { name: 'Actions of Rack 2' }));
    const flyout = await screen.findByRole('region', { name: 'Cluster manager Rack 2' });
    // The super admin's actions: rename and delete.
    expect(within(flyout).getByRole('button', { name: 'Rename' })).toBeInTheDocument();
    expect(within(flyout).getByRole('button', { name: 'Delete' })).toBeInTheDocument();
  });
});
