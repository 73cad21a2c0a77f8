import { configure, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { stubApi, type ApiRoutes } from '../../../test-support/api-stub';
import { aMe } from '../../../test-support/fixtures';
import { stubWindowWidth } from '../../../test-support/media';
import { clearToasts, renderPage } from '../../../test-support/render';
import { registryField } from '../clusters/RegistryForm';
import { currentOrganization } from '../clusters/testing';
import OrganizationSettingsPage from './OrganizationSettingsPage';

vi.setConfig({ testTimeout: 60_000 });
configure({ asyncUtilTimeout: 15_000 });

const STORED = {
  use_custom: true,
  url: 'https://registry.example.org',
  username: 'robot',
  password: '********',
};

function open(extra: ApiRoutes = {}) {
  const calls = stubApi({
    'GET /me': () => ({ result: aMe({ role: 'organization_admin' }) }),
    'GET /organization': () => ({ result: currentOrganization({ registry: STORED }) }),
    ...extra,
  });
  renderPage(<OrganizationSettingsPage />, {
    url: '/settings/organization?section=registry',
    path: '/settings/organization',
  });
  return calls;
}
const saves = (calls: ReturnType<typeof open>) =>
  calls.filter((c) => c.key === 'PUT /organizations/org-1/registry');

beforeEach(() => {
  stubWindowWidth(1400);
  clearToasts();
});
afterEach(() => vi.unstubAllGlobals());

describe('Organization Settings › Registry', () => {
  it('never shows the stored password and sends none unless one is typed', async () => {
    const calls = open({
      'PUT /organizations/org-1/registry': () => ({
        result: currentOrganization({ registry: { ...STORED, username: 'robot-2' } }),
      }),
    });
    const user = userEvent.setup();
    const url = await screen.findByLabelText('URL');
    expect(url).toHaveValue('https://registry.example.org');
    expect(screen.getByRole('radio', { name: 'Private registry' })).toBeChecked();
    const password = screen.getByLabelText('Password');
    expect(password).toHaveValue('');
    expect(screen.getByText('A password is stored: leave empty to keep it.')).toBeInTheDocument();
    const save = screen.getByRole('button', { name: 'Save' });
    expect(save).toBeDisabled();

    await user.clear(screen.getByLabelText('Username'));
    await user.type(screen.getByLabelText('Username'), 'robot-2');
    await user.click(save);
    await waitFor(() => expect(saves(calls)).toHaveLength(1));
    expect(saves(calls)[0]!.body).toEqual({
      id: 'org-1',
      registry: { use_custom: true, url: 'https://registry.example.org', username: 'robot-2' },
    });
    expect(await screen.findByText('Registry saved.')).toBeInTheDocument();
  });

  it('shows the API refusal by the field it names', async () => {
    const calls = open({
      'PUT /organizations/org-1/registry': () => ({
        status: 422,
        code: 'unprocessable',
        error: 'registry.url: must be an http(s) URL',
      }),
    });
    const user = userEvent.setup();
    const url = await screen.findByLabelText('URL');
    await user.clear(url);
    await user.type(url, 'ftp://registry.example.org');
    await user.type(screen.getByLabelText('Password'), 'n3w-pw');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('registry.url: must be an http(s) URL')).toBeInTheDocument();
    expect(url).toHaveAttribute('aria-invalid', 'true');
    expect(saves(calls)[0]!.body).toMatchObject({ registry: { password: 'n3w-pw' } });
  });

  it('switches back to the platform registry with nothing else sent', async () => {
    const calls = open({
      'PUT /organizations/org-1/registry': () => ({
        result: currentOrganization({ registry: { use_custom: false, password: '' } }),
      }),
    });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('radio', { name: 'Platform registry' }));
    expect(screen.queryByLabelText('URL')).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(saves(calls)).toHaveLength(1));
    expect(saves(calls)[0]!.body).toEqual({ id: 'org-1', registry: { use_custom: false } });
  });

  it.each([
    ['registry.url: must be an http(s) URL', 'url'],
    ['registry.password: send the password again with a new username', 'password'],
    ['registry.username: at most 200 characters', 'username'],
    ['Forbidden', null],
  ])('%s names the field %s', (message, field) => {
    expect(registryField(message)).toBe(field);
  });
});
