import { configure, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { stubApi, type ApiRoutes } from '../../../test-support/api-stub';
import { aMe } from '../../../test-support/fixtures';
import { stubWindowWidth } from '../../../test-support/media';
import { clearToasts, renderPage } from '../../../test-support/render';
import { currentOrganization } from '../clusters/testing';
import type { GroupItem, OrganizationItem, UserItem } from '../types';
import SuperSettingsPage from './SuperSettingsPage';

vi.setConfig({ testTimeout: 60_000 });
configure({ asyncUtilTimeout: 15_000 });

const ADA = '11111111-1111-4111-8111-111111111111';
const BOB = '22222222-2222-4222-8222-222222222222';
const CARL = '33333333-3333-4333-8333-333333333333';
const ORG_1 = '0a000000-0000-4000-8000-000000000001';
const ORG_2 = '0a000000-0000-4000-8000-000000000002';

const organization = (over: Partial<OrganizationItem>): OrganizationItem => {
  const { role: _role, ...rest } = currentOrganization(over);
  return rest;
};
const ORGANIZATIONS = [
  organization({
    id: ORG_1,
    name: 'Analytical Engines',
    admins: [ADA, BOB, CARL],
    quota: { cpu: 4000, memory: 8192, disk: 20480 },
    creation_date: '2026-01-01T00:00:00.000Z',
  }),
  organization({
    id: ORG_2,
    name: 'Difference Labs',
    admins: [],
    quota: { cpu: 1000, memory: 1024, disk: 1024 },
  }),
];
const PEOPLE = [
  { id: ADA, email: 'ada@example.com', organization: ORG_1 },
  { id: BOB, email: 'bob@example.com', organization: ORG_1 },
  { id: CARL, email: 'carl@example.com', organization: ORG_2 },
];
// 8 cores, 16 GB, 50 GB free.
const CAPACITY = {
  total: { cpu: 13000, memory: 25600, disk: 72704 },
  clusters: 1,
  allocated: { cpu: 5000, memory: 9216, disk: 21504 },
  free: { cpu: 8000, memory: 16384, disk: 51200 },
};
const group = (over: Partial<GroupItem>): GroupItem => ({
  id: 'g',
  uuid: 'g',
  organization: ORG_1,
  organization_name: 'Analytical Engines',
  name: 'g',
  quota: { cpu: 1000, memory: 1024, disk: 1024 },
  admins: [],
  members: [],
  gid: 1000,
  use_free: false,
  ...over,
});
const account = (id: string, email: string, organizations: [string, string][]): UserItem => ({
  id,
  email,
  first_name: email.split('@')[0]!,
  last_name: '',
  fullName: email.split('@')[0]!,
  creation_time: '2026-01-01T00:00:00.000Z',
  verified: true,
  uid: 1000,
  organizations: organizations.map(([oid, name]) => ({ id: oid, name, role: 'user', uid: 1000 })),
  groups: [],
  quota: [],
});

function open(tab: string, extra: ApiRoutes = {}) {
  const calls = stubApi({
    'GET /me': () => ({ result: aMe({ role: 'admin', current_organization: ORG_1 }) }),
    'GET /organizations': () => ({ result: ORGANIZATIONS }),
    'GET /organizations/capacity': () => ({ result: CAPACITY }),
    'GET /admin/username': () => ({ result: PEOPLE }),
    'GET /group': () => ({
      result: [
        group({
          id: 'a0000000-0000-4000-8000-00000000000a',
          uuid: 'a0000000-0000-4000-8000-00000000000a',
          name: 'Engines',
        }),
        group({
          id: 'b0000000-0000-4000-8000-00000000000b',
          uuid: 'b0000000-0000-4000-8000-00000000000b',
          name: 'Looms',
          organization: ORG_2,
          organization_name: 'Difference Labs',
        }),
      ],
    }),
    'GET /admin/users': () => ({
      result: [
        account(ADA, 'ada@example.com', [[ORG_1, 'Analytical Engines']]),
        account(CARL, 'carl@example.com', [[ORG_2, 'Difference Labs']]),
      ],
    }),
    ...extra,
  });
  renderPage(<SuperSettingsPage />, { url: `/settings/admin?tab=${tab}`, path: '/settings/admin' });
  return calls;
}
const sliders = (dialog: HTMLElement) =>
  within(dialog)
    .getAllByRole('slider')
    .map((s) => [s.getAttribute('aria-valuenow'), s.getAttribute('max')]);

beforeEach(() => {
  stubWindowWidth(1400);
  clearToasts();
});
afterEach(() => vi.unstubAllGlobals());

describe('Super Settings › Organizations', () => {
  it('lists the organizations with their first admin and a count of the rest, and searches', async () => {
    open('organizations');
    const table = await screen.findByRole('table', { name: 'Organizations' });
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((h) => h.textContent),
    ).toEqual(['Name', 'Organization Admins', 'Quota', 'Creation Date', 'Actions']);
    const engines = within(table).getByRole('row', { name: /Analytical Engines/ });
    expect(engines).toHaveTextContent('ada@example.com +2');
    expect(engines).toHaveTextContent('4 cores · 8 GB · 20 GB');
    await userEvent.setup().type(screen.getByLabelText('Search organizations'), 'difference');
    expect(within(table).queryByText('Analytical Engines')).toBeNull();
    expect(within(table).getByText('Difference Labs')).toBeInTheDocument();
  });

  it('creates an organization with quota sliders capped by the free capacity', async () => {
    const calls = open('organizations', {
      'POST /organizations': () => ({ status: 201, result: ORGANIZATIONS[1] }),
    });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Create new' }));
    const dialog = await screen.findByRole('dialog', { name: 'Create Organization' });
    expect(within(dialog).getByRole('button', { name: 'Save' })).toBeDisabled();
    expect(sliders(dialog)).toEqual([
      ['0', '8'],
      ['0', '16'],
      ['0', '50'],
    ]);
    await user.type(within(dialog).getByLabelText('Name'), '   ');
    expect(within(dialog).getByRole('button', { name: 'Save' })).toBeDisabled();
    await user.type(within(dialog).getByLabelText('Name'), 'Jacquard Works{Enter}');
    await waitFor(() => expect(calls.some((c) => c.key === 'POST /organizations')).toBe(true));
    expect(calls.find((c) => c.key === 'POST /organizations')!.body).toEqual({
      name: 'Jacquard Works',
      admins: [],
      quota: { cpu: 0, memory: 0, disk: 0 },
    });
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(await screen.findByText('Organization Jacquard Works created.')).toBeInTheDocument();
  });

  it('edits an organization up to the free capacity plus its own quota', async () => {
    const calls = open('organizations', {
      [`PUT /organizations/${ORG_1}`]: () => ({ result: ORGANIZATIONS[0] }),
    });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Edit Analytical Engines' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit Organization' });
    expect(sliders(dialog)).toEqual([
      ['4', '12'],
      ['8', '24'],
      ['20', '70'],
    ]);
    await user.clear(within(dialog).getByLabelText('Name'));
    await user.type(within(dialog).getByLabelText('Name'), 'Engines Ltd');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(calls.some((c) => c.key === `PUT /organizations/${ORG_1}`)).toBe(true));
    expect(calls.find((c) => c.key === `PUT /organizations/${ORG_1}`)!.body).toEqual({
      name: 'Engines Ltd',
      admins: [ADA, BOB, CARL],
      quota: { cpu: 4000, memory: 8192, disk: 20480 },
      use_free: false,
      enable_provisioner: false,
      lock_provisioner: false,
    });
  });

  it("edits the super admin's fields: use free quota, the automatic provisioner, its lock and limits", async () => {
    const calls = open('organizations', {
      [`PUT /organizations/${ORG_1}`]: () => ({ result: ORGANIZATIONS[0] }),
    });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Edit Analytical Engines' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit Organization' });
    const limit = (name: string) => within(dialog).getByRole('spinbutton', { name });
    // The limits wait for the provisioner to be enabled.
    expect(limit('CPU limit (cores)')).toBeDisabled();
    await user.click(within(dialog).getByRole('switch', { name: 'Use free quota' }));
    await user.click(within(dialog).getByRole('switch', { name: 'Enable the automatic provisioner' }));
    await user.click(within(dialog).getByRole('switch', { name: 'Lock the provisioner limits' }));
    expect(limit('CPU limit (cores)')).toBeEnabled();
    for (const [name, value] of [
      ['CPU limit (cores)', '2.5'],
      ['Memory limit (GB)', '4'],
      ['Disk limit (GB)', '10'],
    ] as const) {
      await user.clear(limit(name));
      await user.type(limit(name), value);
    }
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(calls.some((c) => c.key === `PUT /organizations/${ORG_1}`)).toBe(true));
    expect(calls.find((c) => c.key === `PUT /organizations/${ORG_1}`)!.body).toEqual({
      name: 'Analytical Engines',
      admins: [ADA, BOB, CARL],
      quota: { cpu: 4000, memory: 8192, disk: 20480 },
      use_free: true,
      enable_provisioner: true,
      lock_provisioner: true,
      automatic_resources: { cpu: 2500, memory: 4096, disk: 10240 },
    });
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });

  it.each(['-1', '0.3', ''])('keeps Save disabled while a provisioner limit is %j', async (value) => {
    open('organizations', {
      [`GET /organizations`]: () => ({
        result: [{ ...ORGANIZATIONS[0]!, enable_provisioner: true }, ORGANIZATIONS[1]],
      }),
    });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Edit Analytical Engines' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit Organization' });
    const memory = within(dialog).getByRole('spinbutton', { name: 'Memory limit (GB)' });
    await user.clear(memory);
    if (value) await user.type(memory, value);
    expect(within(dialog).getByRole('button', { name: 'Save' })).toBeDisabled();
    expect(within(dialog).getByText('At least 0, in steps of 0.5')).toBeInTheDocument();
    await user.clear(memory);
    await user.type(memory, '1.5');
    expect(within(dialog).getByRole('button', { name: 'Save' })).toBeEnabled();
  });

  it('creates without the fields only an existing organization has', async () => {
    open('organizations');
    await userEvent.setup().click(await screen.findByRole('button', { name: 'Create new' }));
    const dialog = await screen.findByRole('dialog', { name: 'Create Organization' });
    expect(within(dialog).queryByRole('switch')).toBeNull();
    expect(within(dialog).queryByRole('spinbutton')).toBeNull();
  });

  it.each([
    [false, null],
    [true, 'true'],
  ])("deletes an organization, 'Remove all users' %s sends purge %s", async (removeAll, purge) => {
    const calls = open('organizations', { [`DELETE /organizations/${ORG_2}`]: () => ({ result: true }) });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Delete Difference Labs' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete Organization' });
    if (removeAll) await user.click(within(dialog).getByRole('checkbox', { name: 'Remove all users' }));
    await user.click(within(dialog).getByRole('button', { name: 'Confirm' }));
    await waitFor(() => expect(calls.some((c) => c.key === `DELETE /organizations/${ORG_2}`)).toBe(true));
    expect(calls.find((c) => c.key === `DELETE /organizations/${ORG_2}`)!.query.get('purge')).toBe(purge);
    expect(await screen.findByText('Organization Difference Labs deleted.')).toBeInTheDocument();
  });

  it("shows the toast titled 'fail' when the list does not load", async () => {
    open('organizations', { 'GET /organizations': () => ({ status: 500, error: 'database down' }) });
    expect(await screen.findByText('fail')).toBeInTheDocument();
  });
});

describe('Super Settings › Groups and Users', () => {
  it('filters the groups by organization', async () => {
    open('groups');
    const table = await screen.findByRole('table', { name: 'Groups' });
    expect(within(table).getByText('Engines')).toBeInTheDocument();
    expect(within(table).getByText('Looms')).toBeInTheDocument();
    const user = userEvent.setup();
    await user.click(screen.getByRole('combobox', { name: 'Organization' }));
    await user.click(await screen.findByRole('option', { name: 'Difference Labs' }));
    await waitFor(() => expect(within(table).queryByText('Engines')).toBeNull());
    expect(within(table).getByText('Looms')).toBeInTheDocument();
  });

  it("lists every account under 'All' and one organization's when chosen", async () => {
    open('users');
    const table = await screen.findByRole('table', { name: 'Users' });
    expect(within(table).getByText('ada@example.com')).toBeInTheDocument();
    expect(within(table).getByText('carl@example.com')).toBeInTheDocument();
    expect(screen.getByRole('combobox', { name: 'Organization' })).toHaveTextContent('All');
    const user = userEvent.setup();
    await user.click(screen.getByRole('combobox', { name: 'Organization' }));
    await user.click(await screen.findByRole('option', { name: 'Analytical Engines' }));
    await waitFor(() => expect(within(table).queryByText('carl@example.com')).toBeNull());
    expect(within(table).getByText('ada@example.com')).toBeInTheDocument();
  });
});
