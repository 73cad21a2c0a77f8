import { configure, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Role } from '../../../api/answers';
import { stubApi, type ApiRoutes } from '../../../test-support/api-stub';
import { aMe } from '../../../test-support/fixtures';
import { stubWindowWidth } from '../../../test-support/media';
import { clearToasts, renderPage } from '../../../test-support/render';
import type { CurrentOrganization } from '../clusters/queries';
import { currentOrganization } from '../clusters/testing';
import en from '../../../i18n/locales/en/provisioner.json';
import fr from '../../../i18n/locales/fr/provisioner.json';
import it_ from '../../../i18n/locales/it/provisioner.json';
import OrganizationSettingsPage from './OrganizationSettingsPage';

vi.setConfig({ testTimeout: 60_000 });
configure({ asyncUtilTimeout: 15_000 });

function open(role: Role, organization: Partial<CurrentOrganization>, extra: ApiRoutes = {}) {
  const calls = stubApi({
    'GET /me': () => ({ result: aMe({ role }) }),
    'GET /organization': () => ({ result: currentOrganization(organization) }),
    'GET /cluster': () => ({ result: [] }),
    'GET /organizations': () => ({ result: [{ ...currentOrganization(), role: undefined }] }),
    ...extra,
  });
  renderPage(<OrganizationSettingsPage />, {
    url: '/settings/organization?section=clusterManagers',
    path: '/settings/organization',
  });
  return calls;
}
const card = async () => screen.findByRole('region', { name: 'Automatic Provisioner' });
const saves = (calls: ReturnType<typeof open>) => calls.filter((c) => c.key === 'PUT /organizations/org-1');

beforeEach(() => {
  stubWindowWidth(1400);
  clearToasts();
});
afterEach(() => vi.unstubAllGlobals());

describe('Organization Settings › Cluster Managers › Automatic Provisioner', () => {
  it('turns the provisioner on with limits in cores and GB, sent in millicores and MB', async () => {
    const enabled = { enable_provisioner: true, automatic_resources: { cpu: 1000, memory: 2048, disk: 0 } };
    const calls = open('organization_admin', enabled, {
      'PUT /organizations/org-1': () => ({
        result: currentOrganization({
          ...enabled,
          use_automatic_resources: true,
          automatic_resources: { cpu: 2500, memory: 2048, disk: 512 },
        }),
      }),
    });
    const user = userEvent.setup();
    const region = await card();
    const cpu = within(region).getByLabelText('CPU (cores)');
    expect(cpu).toHaveValue(1);
    expect(within(region).getByLabelText('Memory (GB)')).toHaveValue(2);
    // Off: the limits wait for the switch; nothing changed: Save is disabled.
    expect(cpu).toBeDisabled();
    const save = within(region).getByRole('button', { name: 'Save' });
    expect(save).toBeDisabled();

    await user.click(within(region).getByRole('switch', { name: 'Use the automatic provisioner' }));
    expect(cpu).toBeEnabled();
    await user.clear(cpu);
    await user.type(cpu, '2.5');
    await user.clear(within(region).getByLabelText('Disk (GB)'));
    await user.type(within(region).getByLabelText('Disk (GB)'), '0.5');
    await user.click(save);
    await waitFor(() => expect(saves(calls)).toHaveLength(1));
    expect(saves(calls)[0]!.body).toEqual({
      id: 'org-1',
      useAutomaticLimit: true,
      provisionerResources: { cpu: 2500, memory: 2048, disk: 512 },
    });
    expect(await screen.findByText('Automatic provisioner saved.')).toBeInTheDocument();
    await waitFor(() => expect(within(region).getByRole('button', { name: 'Save' })).toBeDisabled());
  });

  it.each<[string, Partial<CurrentOrganization>, string]>([
    ['not enabled by the super admin', {}, 'The super admin has not enabled the automatic provisioner'],
    [
      'locked by the super admin',
      { enable_provisioner: true, lock_provisioner: true, use_automatic_resources: true },
      "The super admin has locked the automatic provisioner's values.",
    ],
  ])('%s: everything is read-only and says why', async (_, organization, why) => {
    open('organization_admin', organization);
    const region = await card();
    expect(within(region).getByText(why, { exact: false })).toBeInTheDocument();
    expect(within(region).getByRole('switch', { name: 'Use the automatic provisioner' })).toBeDisabled();
    expect(within(region).getByLabelText('CPU (cores)')).toBeDisabled();
    expect(within(region).getByRole('button', { name: 'Save' })).toBeDisabled();
  });

  it('refuses a negative or empty limit (Save disabled)', async () => {
    open('organization_admin', { enable_provisioner: true, use_automatic_resources: true });
    const user = userEvent.setup();
    const region = await card();
    await user.clear(within(region).getByLabelText('Memory (GB)'));
    expect(within(region).getByRole('button', { name: 'Save' })).toBeDisabled();
    await user.type(within(region).getByLabelText('Memory (GB)'), '-1');
    expect(within(region).getByRole('button', { name: 'Save' })).toBeDisabled();
    await user.clear(within(region).getByLabelText('Memory (GB)'));
    await user.type(within(region).getByLabelText('Memory (GB)'), '1.5');
    expect(within(region).getByRole('button', { name: 'Save' })).toBeEnabled();
  });

  it('is not shown to the super admin', async () => {
    open('admin', { enable_provisioner: true });
    expect(await screen.findByText('Round Robin')).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Automatic Provisioner' })).toBeNull();
  });
});

describe('the provisioner dictionaries', () => {
  it.each([
    ['it', it_],
    ['fr', fr],
  ])('%s has every English key, translated', (_, dictionary: Record<string, string>) => {
    expect(Object.keys(dictionary).sort()).toEqual(Object.keys(en).sort());
    const english = en as Record<string, string>;
    expect(Object.keys(english).filter((k) => dictionary[k] === english[k] || !dictionary[k])).toEqual([]);
  });
});
