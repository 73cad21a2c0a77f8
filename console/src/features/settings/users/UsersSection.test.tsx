import { configure, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Role } from '../../../api/answers';
import { stubApi, type ApiRoutes } from '../../../test-support/api-stub';
import { aMe } from '../../../test-support/fixtures';
import { stubWindowWidth } from '../../../test-support/media';
import { clearToasts, renderPage } from '../../../test-support/render';
import { currentOrganization } from '../clusters/testing';
import type { GroupTable, GroupTableUser } from '../types';
import UsersSettingsPage from './UsersSettingsPage';

vi.setConfig({ testTimeout: 60_000 });
configure({ asyncUtilTimeout: 15_000 });

const ADA = '11111111-1111-4111-8111-111111111111';
const BOB = '22222222-2222-4222-8222-222222222222';
const CARL = '33333333-3333-4333-8333-333333333333';

function member(id: string, over: Partial<GroupTableUser> & { group: string }): GroupTableUser {
  const { group, ...rest } = over;
  return {
    uuid: `${group}-${id}`,
    id,
    name: '',
    email: '',
    uid: null,
    admin: false,
    quota: { group, cpu: 0, memory: 0, disk: 0, use_free: false, use_percentage: false },
    last_sandbox_created: null,
    ...rest,
  };
}

// Group g-1: 4 cores, 8 GB, 20 GB. Ada has 1 core, 2 GB, 5 GB fixed; Bob 50 % of everything.
const TABLES: GroupTable[] = [
  {
    id: 'g-1',
    name: 'Engines',
    quota: { cpu: 4000, memory: 8192, disk: 20480 },
    users: [
      member(ADA, {
        group: 'g-1',
        name: 'Ada Lovelace',
        email: 'ada@example.com',
        uid: 2001,
        quota: { group: 'g-1', cpu: 1000, memory: 2048, disk: 5120, use_free: false, use_percentage: false },
        last_sandbox_created: '2026-11-20T09:30:00.000Z',
      }),
      member(BOB, {
        group: 'g-1',
        name: 'Bob Babbage',
        email: 'bob@example.com',
        quota: { group: 'g-1', cpu: 50, memory: 50, disk: 50, use_free: false, use_percentage: true },
      }),
    ],
  },
  {
    id: 'g-2',
    name: 'Looms',
    quota: { cpu: 2000, memory: 4096, disk: 10240 },
    users: [member(CARL, { group: 'g-2', name: 'Carl Jacquard', email: 'carl@example.com', uid: 1500 })],
  },
];

function open(role: Role, extra: ApiRoutes = {}) {
  const calls = stubApi({
    'GET /me': () => ({ result: aMe({ role }) }),
    'GET /admin/group/users': () => ({ result: TABLES }),
    'GET /group': () => ({ result: [] }),
    ...extra,
  });
  renderPage(<UsersSettingsPage />, { url: '/settings/users', path: '/settings/users' });
  return calls;
}
const table = (group: string) => screen.findByRole('table', { name: `Members of ${group}` });

beforeEach(() => {
  stubWindowWidth(1400);
  clearToasts();
});
afterEach(() => vi.unstubAllGlobals());

describe('Users Settings › Users', () => {
  it('shows one table per group with the spec columns, and the search narrows the rows', async () => {
    open('organization_admin');
    const engines = await table('Engines');
    expect(
      within(engines)
        .getAllByRole('columnheader')
        .map((h) => h.textContent),
    ).toEqual(['', 'Name', 'Email', 'UID', 'Quota', 'Last Sandbox Created', 'Actions']);
    const ada = within(engines).getByRole('row', { name: /Ada Lovelace/ });
    expect(ada).toHaveTextContent('2001');
    expect(ada).toHaveTextContent('1 cores · 2 GB · 5 GB');
    expect(within(engines).getByRole('row', { name: /Bob Babbage/ })).toHaveTextContent('50% · 50% · 50%');
    expect(within(await table('Looms')).getByRole('row', { name: /Carl Jacquard/ })).toHaveTextContent(
      'Never',
    );

    const user = userEvent.setup();
    // Case-sensitive, on the name, e-mail or group name.
    await user.type(screen.getByLabelText('Search users'), 'bob');
    expect(within(await table('Engines')).queryByText('Ada Lovelace')).toBeNull();
    expect(within(await table('Engines')).getByText('Bob Babbage')).toBeInTheDocument();
    expect(within(await table('Looms')).getByText('No data to show')).toBeInTheDocument();
    await user.clear(screen.getByLabelText('Search users'));
    await user.type(screen.getByLabelText('Search users'), 'Looms');
    expect(within(await table('Looms')).getByText('Carl Jacquard')).toBeInTheDocument();
    await user.clear(screen.getByLabelText('Search users'));
    await user.type(screen.getByLabelText('Search users'), 'ADA');
    expect(within(await table('Engines')).queryByText('Ada Lovelace')).toBeNull();
  });

  it('edits a quota: Save waits for a change, switching to percentages converts, the UID rule holds', async () => {
    const calls = open('group_admin', { [`PUT /user/${ADA}/quota`]: () => ({ result: true }) });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Edit the quota of ada@example.com' }));
    const dialog = await screen.findByRole('dialog');
    const save = within(dialog).getByRole('button', { name: 'Save' });
    expect(save).toBeDisabled();
    // Fixed mode: Bob's percentage does not count, so the maxima are the group's quota.
    const sliders = within(dialog).getAllByRole('slider');
    expect(
      sliders.map((s) => [s.getAttribute('aria-valuenow'), s.getAttribute('max'), s.getAttribute('step')]),
    ).toEqual([
      ['1', '4', '0.5'],
      ['2', '8', '0.5'],
      ['5', '20', '0.1'],
    ]);

    await user.click(within(dialog).getByRole('switch', { name: 'Percentage of the group quota' }));
    expect(
      within(dialog)
        .getAllByRole('slider')
        .map((s) => [s.getAttribute('aria-valuenow'), s.getAttribute('max'), s.getAttribute('step')]),
    ).toEqual([
      ['25', '100', '1'],
      ['25', '100', '1'],
      ['25', '100', '0.5'],
    ]);
    expect(save).toBeEnabled();

    const uid = within(dialog).getByLabelText('UID');
    await user.clear(uid);
    await user.type(uid, '999');
    expect(save).toBeDisabled();
    await user.clear(uid);
    await user.type(uid, '2002');
    expect(save).toBeEnabled();
    await user.click(save);

    await waitFor(() => expect(calls.filter((c) => c.key === `PUT /user/${ADA}/quota`)).toHaveLength(1));
    expect(calls.find((c) => c.key === `PUT /user/${ADA}/quota`)!.body).toEqual({
      quota: { group: 'g-1', cpu: 25, memory: 25, disk: 25, use_percentage: true },
      uid: 2002,
    });
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(await screen.findByText('Quota of ada@example.com saved.')).toBeInTheDocument();
  });

  it('keeps the modal open and says why when the API refuses', async () => {
    open('organization_admin', {
      [`PUT /user/${ADA}/quota`]: () => ({
        status: 409,
        code: 'conflict',
        error: 'uid: already used in this organization',
      }),
    });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Edit the quota of ada@example.com' }));
    const dialog = await screen.findByRole('dialog');
    const uid = within(dialog).getByLabelText('UID');
    await user.clear(uid);
    await user.type(uid, '1500');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText(/already used in this organization/)).toBeInTheDocument();
    expect(screen.getByRole('dialog')).toBeInTheDocument();
  });

  it('removes a member from a group after confirmation, and the checked ones together', async () => {
    const calls = open('organization_admin', {
      [`DELETE /user/${ADA}/group/g-1`]: () => ({ result: true }),
      [`DELETE /user/${BOB}/group/g-1`]: () => ({ result: true }),
      [`DELETE /user/${CARL}/group/g-2`]: () => ({ result: true }),
    });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Remove carl@example.com from the group' }));
    let dialog = await screen.findByRole('dialog');
    expect(dialog).toHaveTextContent('Remove carl@example.com (members: 1) from the group Looms?');
    await user.click(within(dialog).getByRole('button', { name: 'Confirm' }));
    await waitFor(() => expect(calls.some((c) => c.key === `DELETE /user/${CARL}/group/g-2`)).toBe(true));
    expect(await screen.findByText('Members removed from Looms: 1.')).toBeInTheDocument();

    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    await user.click(screen.getByRole('checkbox', { name: 'Select every member of Engines' }));
    await user.click(screen.getByRole('button', { name: 'Remove selected (2)' }));
    dialog = await screen.findByRole('dialog');
    await user.click(within(dialog).getByRole('button', { name: 'Confirm' }));
    await waitFor(() =>
      expect(calls.filter((c) => c.method === 'DELETE').map((c) => c.key)).toEqual([
        `DELETE /user/${CARL}/group/g-2`,
        `DELETE /user/${ADA}/group/g-1`,
        `DELETE /user/${BOB}/group/g-1`,
      ]),
    );
  });

  it.each<[Role, boolean, boolean]>([
    ['admin', true, true],
    ['organization_admin', true, false],
    ['group_admin', false, false],
  ])('%s sees Add User: %s; chooses the organization: %s', async (role, shown, chooses) => {
    open(role, {
      'GET /organizations': () => ({
        result: [currentOrganization({ id: 'org-1' }), currentOrganization({ id: 'org-2', name: 'Looms' })],
      }),
    });
    await table('Engines');
    expect(Boolean(screen.queryByRole('button', { name: 'Add User' }))).toBe(shown);
    if (shown) {
      await userEvent.setup().click(screen.getByRole('button', { name: 'Add User' }));
      const dialog = await screen.findByRole('dialog', { name: 'Invite new users' });
      // Spec 3 §6: only the super admin chooses the organization when inviting.
      expect(Boolean(within(dialog).queryByLabelText('Organization'))).toBe(chooses);
    }
  });

  it('is refused to a plain user', async () => {
    open('user');
    expect(await screen.findByText('Your role does not give you access to this screen.')).toBeInTheDocument();
  });
});
