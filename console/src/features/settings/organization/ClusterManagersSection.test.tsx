import { configure, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Role } from '../../../api/answers';
import { stubApi, type ApiRoutes } from '../../../test-support/api-stub';
import { aMe } from '../../../test-support/fixtures';
import { stubWindowWidth } from '../../../test-support/media';
import { clearToasts, renderPage } from '../../../test-support/render';
import type { ClusterItem } from '../clusters/queries';
import { clusterItem, currentOrganization } from '../clusters/testing';
import OrganizationSettingsPage from './OrganizationSettingsPage';

vi.setConfig({ testTimeout: 90_000 });
configure({ asyncUtilTimeout: 15_000 });

const CONNECTIONS = ['connected', 'connecting', 'closed'] as const;
/** 23 cluster managers cm-00 … cm-22, added a day apart, connections in turn. */
const MANY = Array.from({ length: 23 }, (_v, i) =>
  clusterItem({
    id: `cm-${String(i).padStart(2, '0')}`,
    creationDate: new Date(Date.UTC(2026, 10, 1 + i)).toISOString(),
    connection: CONNECTIONS[i % 3],
    cpu: 1000 * (i + 1),
  }),
);

function open(role: Role, clusters: ClusterItem[], extra: ApiRoutes = {}) {
  const calls = stubApi({
    'GET /me': () => ({ result: aMe({ role }) }),
    'GET /organization': () => ({ result: currentOrganization() }),
    'GET /cluster': () => ({ result: clusters }),
    'GET /organizations': () => ({
      result: [
        { ...currentOrganization(), role: undefined },
        { ...currentOrganization({ id: 'org-2', name: 'Difference Labs' }), role: undefined },
      ],
    }),
    ...extra,
  });
  const page = renderPage(<OrganizationSettingsPage />, {
    url: '/settings/organization?section=clusterManagers',
    path: '/settings/organization',
  });
  return { calls, ...page };
}
const rows = () => screen.getAllByTestId('cluster-row');
const ids = () => rows().map((r) => within(r).getAllByRole('cell')[1]!.textContent);

beforeEach(() => {
  stubWindowWidth(1400);
  clearToasts();
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('the cluster manager table', () => {
  it('shows the columns, a dot per connection state, resources in cores and GB, and pages at 10/20/50', async () => {
    open('organization_admin', MANY);
    await screen.findAllByTestId('cluster-row');
    const headers = within(screen.getByRole('table', { name: 'Cluster managers' }))
      .getAllByRole('columnheader')
      .map((h) => h.textContent);
    expect(headers).toEqual([
      '',
      'ID',
      'Name',
      'CPU Cores',
      'Memory (GB)',
      'Disk space (GB)',
      'Added Date',
      'Last seen',
      'Actions',
    ]);
    expect(rows()).toHaveLength(10);
    const dots = rows().map((r) => within(r).getByRole('img').dataset.connection);
    expect(dots.slice(0, 3)).toEqual(['connected', 'connecting', 'closed']);
    expect(screen.getAllByRole('img', { name: 'Connecting' })).toHaveLength(3);
    const first = within(rows()[0]!)
      .getAllByRole('cell')
      .map((c) => c.textContent);
    expect(first.slice(3, 6)).toEqual(['1', '8', '20']);

    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Go to next page' }));
    expect(ids()[0]).toBe('cm-10');
    await user.click(screen.getByRole('combobox'));
    expect(screen.getAllByRole('option').map((o) => o.textContent)).toEqual(['10', '20', '50']);
    await user.click(screen.getByRole('option', { name: '20' }));
    expect(rows()).toHaveLength(20);
    expect(ids()[0]).toBe('cm-00');
    await user.click(screen.getByRole('button', { name: 'Go to next page' }));
    expect(ids()).toEqual(['cm-20', 'cm-21', 'cm-22']);
  });

  it('sorts by a column and says when a search matches nothing', async () => {
    open('organization_admin', MANY);
    await screen.findAllByTestId('cluster-row');
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'CPU Cores' }));
    await user.click(screen.getByRole('button', { name: 'CPU Cores' }));
    expect(ids()[0]).toBe('cm-22');
    await user.type(screen.getByLabelText('Search cluster managers'), 'cm-07');
    expect(ids()).toEqual(['cm-07']);
    await user.type(screen.getByLabelText('Search cluster managers'), 'x');
    expect(screen.getByText('No clusters to show')).toBeInTheDocument();
  });

  it('refreshes the list every 10 seconds', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    let answer = [clusterItem({ id: 'cm-a', connection: 'connected' })];
    const { calls } = open('organization_admin', [], { 'GET /cluster': () => ({ result: answer }) });
    await screen.findAllByText('cm-a');
    const listed = () => calls.filter((c) => c.key === 'GET /cluster').length;
    expect(listed()).toBe(1);
    answer = [clusterItem({ id: 'cm-a', connection: 'closed' }), clusterItem({ id: 'cm-b' })];
    await vi.advanceTimersByTimeAsync(10_000);
    await screen.findAllByText('cm-b');
    expect(listed()).toBe(2);
    expect(screen.getByRole('img', { name: 'Closed' })).toBeInTheDocument();
  });
});

describe('the token modal', () => {
  it('opens from the empty state, shows the token once with a copy button, and forgets it when closed', async () => {
    const { calls } = open('organization_admin', [], {
      'POST /cluster': () => ({
        status: 201,
        result: { id: 'cm-new', token_id: '00000000-0000-4000-8000-000000000001', token: 'sfa_secret-token' },
      }),
    });
    const user = userEvent.setup();
    expect(await screen.findByText('No cluster managers yet')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Generate Token' }));
    const dialog = await screen.findByRole('dialog', { name: 'Add a cluster manager' });
    expect(dialog).toHaveStyle({ width: '662px' });
    await user.click(within(dialog).getByRole('button', { name: 'Own resources' }));
    expect(await within(dialog).findByRole('button', { name: 'Add new' })).toBeDisabled();
    await user.click(within(dialog).getByRole('button', { name: 'Generate Token' }));
    const token = await within(dialog).findByLabelText('Token');
    expect(token).toHaveValue('sfa_secret-token');
    expect(within(dialog).getByText('Copy the token now: it is shown only once.')).toBeInTheDocument();
    expect(within(dialog).getByLabelText('Agent command')).toHaveValue(
      `npx sandflow agent --api ${window.location.origin} --token sfa_secret-token`,
    );
    expect(calls.find((c) => c.key === 'POST /cluster')?.body).toEqual({ organizations: ['org-1'] });
    await user.click(within(dialog).getByRole('button', { name: 'Copy Token' }));
    // user-event stands in for the system clipboard.
    expect(await navigator.clipboard.readText()).toBe('sfa_secret-token');

    await user.click(within(dialog).getByRole('button', { name: 'Close' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    await user.click(screen.getByRole('button', { name: 'Generate Token' }));
    const again = await screen.findByRole('dialog', { name: 'Add a cluster manager' });
    expect(within(again).queryByLabelText('Token')).not.toBeInTheDocument();
    expect(screen.queryByDisplayValue('sfa_secret-token')).not.toBeInTheDocument();
    expect(calls.filter((c) => c.key === 'POST /cluster')).toHaveLength(1);
  });
});

describe('the scheduler', () => {
  it('saves the algorithm 1 second after the choice, and falls back when the API refuses', async () => {
    let refuse = false;
    const { calls } = open('organization_admin', [clusterItem()], {
      'PUT /organizations/org-1/algorithm': (call) =>
        refuse
          ? { status: 403, error: 'Forbidden' }
          : {
              result: currentOrganization({ algorithm: (call.body as { algorithm: 'fill_one' }).algorithm }),
            },
    });
    const user = userEvent.setup();
    const roundRobin = await screen.findByRole('radio', { name: 'Round Robin' });
    expect(roundRobin).toBeChecked();
    const saves = () => calls.filter((c) => c.key === 'PUT /organizations/org-1/algorithm');
    await user.click(screen.getByRole('radio', { name: 'Fill all' }));
    await user.click(screen.getByRole('radio', { name: 'Fill one' }));
    expect(saves()).toHaveLength(0);
    await waitFor(() => expect(saves()).toHaveLength(1));
    expect(saves()[0]!.body).toEqual({ algorithm: 'fill_one' });
    expect(await screen.findByText('Scheduler set to Fill one.')).toBeInTheDocument();

    refuse = true;
    await user.click(screen.getByRole('radio', { name: 'Fill all' }));
    await waitFor(() => expect(saves()).toHaveLength(2));
    await waitFor(() => expect(screen.getByRole('radio', { name: 'Fill one' })).toBeChecked());
    expect(await screen.findByText('Forbidden')).toBeInTheDocument();
  });
});

describe('the flyout per role (spec 3 §6)', () => {
  const clusters = [
    clusterItem({ id: 'platform', isIlluminia: true, organizations: [] }),
    clusterItem({ id: 'cm-1', title: 'GPU rack', name: 'GPU rack' }),
  ];

  it('lets the super admin rename, make public, assign organizations and delete after confirming', async () => {
    const { calls } = open('admin', clusters, {
      'PUT /cluster/cm-1/name': () => ({ result: clusterItem({ id: 'cm-1', name: 'Big rack' }) }),
      'PUT /cluster/cm-1': () => ({ result: clusterItem({ id: 'cm-1', public: true }) }),
      'DELETE /cluster/cm-1': () => ({ result: true }),
    });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Actions of GPU rack' }));
    const flyout = await screen.findByRole('region', { name: 'Cluster manager GPU rack' });
    expect(within(flyout).queryByLabelText('Disable for my organization')).not.toBeInTheDocument();
    const name = within(flyout).getByLabelText('Name');
    await user.clear(name);
    await user.type(name, 'Big rack');
    await user.click(within(flyout).getByRole('button', { name: 'Rename' }));
    await waitFor(() =>
      expect(calls.find((c) => c.key === 'PUT /cluster/cm-1/name')?.body).toEqual({ name: 'Big rack' }),
    );
    await user.click(within(flyout).getByRole('switch', { name: 'Public' }));
    expect(within(flyout).getByLabelText('Organizations')).toBeDisabled();
    await user.click(within(flyout).getByRole('button', { name: 'Save' }));
    await waitFor(() =>
      expect(calls.find((c) => c.key === 'PUT /cluster/cm-1')?.body).toEqual({ id: 'cm-1', is_public: true }),
    );
    await user.click(within(flyout).getByRole('button', { name: 'Delete' }));
    const confirm = await screen.findByRole('dialog', { name: 'Delete cluster manager' });
    expect(calls.some((c) => c.key === 'DELETE /cluster/cm-1')).toBe(false);
    await user.click(within(confirm).getByRole('button', { name: 'Confirm' }));
    await waitFor(() => expect(calls.some((c) => c.key === 'DELETE /cluster/cm-1')).toBe(true));
    expect(await screen.findByText('Cluster manager GPU rack deleted.')).toBeInTheDocument();
  });

  it('never offers to delete the platform cluster manager', async () => {
    open('admin', clusters);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Actions of platform' }));
    const flyout = await screen.findByRole('region', { name: 'Cluster manager platform' });
    expect(within(flyout).getByText('The platform cluster manager cannot be deleted.')).toBeInTheDocument();
    expect(within(flyout).queryByRole('button', { name: 'Delete' })).not.toBeInTheDocument();
  });

  it('lets an organization admin disable one for their organization, and nothing of the super admin', async () => {
    const { calls } = open('organization_admin', clusters, {
      'PUT /organizations/org-1/disable/cm-1': () => ({
        result: currentOrganization({ disabled_clusters: ['cm-1'] }),
      }),
    });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Actions of GPU rack' }));
    const flyout = await screen.findByRole('region', { name: 'Cluster manager GPU rack' });
    expect(within(flyout).queryByRole('button', { name: 'Rename' })).not.toBeInTheDocument();
    expect(within(flyout).queryByRole('switch', { name: 'Public' })).not.toBeInTheDocument();
    expect(within(flyout).queryByRole('button', { name: 'Delete' })).not.toBeInTheDocument();
    expect(within(flyout).getByRole('button', { name: 'Remove from my organization' })).toBeEnabled();
    const save = within(flyout).getByRole('button', { name: 'Save' });
    expect(save).toBeDisabled();
    await user.click(within(flyout).getByRole('switch', { name: 'Disable for my organization' }));
    await user.click(save);
    await waitFor(() =>
      expect(calls.some((c) => c.key === 'PUT /organizations/org-1/disable/cm-1')).toBe(true),
    );
    expect(await screen.findByText('GPU rack is disabled for your organization.')).toBeInTheDocument();
  });

  it.each(['group_admin', 'user'] as const)('refuses Organization Settings to a %s', async (role) => {
    const { calls } = open(role, clusters);
    expect(await screen.findByTestId('settings-forbidden')).toBeInTheDocument();
    expect(calls.some((c) => c.key === 'GET /cluster')).toBe(false);
  });
});
