import { act, configure, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { stubApi, type ApiRoutes } from '../../test-support/api-stub';
import { stubWindowWidth } from '../../test-support/media';
import { clearToasts, renderPage } from '../../test-support/render';
import { applyRunMessage } from '../runs/realtime';
import SessionListPage from './SessionListPage';
import { sessionItem } from './testing';

vi.setConfig({ testTimeout: 90_000 });
configure({ asyncUtilTimeout: 15_000 });

const SESSIONS = [
  sessionItem({
    uuid: 'a',
    name: 'alpha',
    workflow: 'ndvi',
    creation_time: '2026-11-01T10:00:00Z',
    running: true,
  }),
  sessionItem({
    uuid: 'b',
    name: 'beta',
    workflow: 'etl',
    creation_time: '2026-11-03T10:00:00Z',
    error: true,
  }),
  sessionItem({
    uuid: 'c',
    name: 'gamma',
    workflow: '',
    creation_time: '2026-11-02T10:00:00Z',
    has_run_list: false,
    run_count: 0,
    active: true,
    next_run: '2026-12-01T10:00:00Z',
  }),
];

function open(extra: ApiRoutes = {}) {
  const calls = stubApi({ 'GET /session': () => ({ result: SESSIONS }), ...extra });
  const page = renderPage(<SessionListPage />, { url: '/session/list', path: '/session/list' });
  return { calls, ...page };
}
const names = () =>
  screen.getAllByTestId('session-row').map((r) => within(r).getAllByRole('cell')[1]!.textContent);

beforeEach(() => {
  stubWindowWidth(1400);
  clearToasts();
});
afterEach(() => vi.unstubAllGlobals());

describe('the session list', () => {
  it('lists newest first, colours names by state, and says when there is no workflow or schedule', async () => {
    open();
    await screen.findByText('alpha');
    expect(names()).toEqual(['beta', 'gamma', 'alpha']);
    expect(['alpha', 'beta', 'gamma'].map((n) => screen.getByText(n).dataset.state)).toEqual([
      'running',
      'error',
      'none',
    ]);
    expect(screen.getByText('No workflow found.')).toBeInTheDocument();
    const schedules = screen
      .getAllByTestId('session-row')
      .map((r) => within(r).getAllByRole('cell')[3]!.textContent);
    expect(schedules).toEqual(['Completed', 'Active', 'Completed']);
  });

  it('filters by the query language and the toggles, and sorts by name', async () => {
    open();
    const user = userEvent.setup();
    await screen.findByText('alpha');
    await user.type(screen.getByLabelText('Search sessions'), 'status:error');
    await waitFor(() => expect(names()).toEqual(['beta']));
    await user.clear(screen.getByLabelText('Search sessions'));
    await user.type(screen.getByLabelText('Search sessions'), 'colour:red');
    expect(await screen.findByText('Ignored: colour:red')).toBeInTheDocument();
    await user.clear(screen.getByLabelText('Search sessions'));
    await user.click(screen.getByRole('switch', { name: 'Running' }));
    await waitFor(() => expect(names()).toEqual(['alpha']));
    await user.click(screen.getByRole('switch', { name: 'Running' }));
    await user.click(screen.getByRole('switch', { name: 'Active' }));
    await waitFor(() => expect(names()).toEqual(['gamma']));
    await user.click(screen.getByRole('switch', { name: 'Active' }));
    await user.click(screen.getByRole('button', { name: 'Name' }));
    await waitFor(() => expect(names()).toEqual(['alpha', 'beta', 'gamma']));
  });

  it("deletes after 'Confirm deleting: {name}' and disables start now while a session runs", async () => {
    const { calls } = open({ 'DELETE /session': () => ({ result: ['b'] }) });
    const user = userEvent.setup();
    await screen.findByText('alpha');
    const [beta, , alpha] = screen.getAllByTestId('session-row');
    expect(within(alpha!).getByRole('button', { name: 'Start Now' })).toBeDisabled();
    expect(within(beta!).getByRole('button', { name: 'Start Now' })).toBeEnabled();
    await user.click(within(beta!).getByRole('button', { name: 'Delete' }));
    const dialog = await screen.findByRole('dialog', { name: 'Confirm deleting: beta' });
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await screen.findByText('Session deleted successfully.');
    expect(calls.find((c) => c.key === 'DELETE /session')!.query.get('sessions')).toBe('b');
  });

  it.each([
    ['desktop to mobile', 1400, 574],
    ['mobile to desktop', 574, 1400],
  ])('keeps the search and an open dialog when the window crosses 574 px (%s)', async (_name, from, to) => {
    const window = stubWindowWidth(from);
    open();
    const user = userEvent.setup();
    await screen.findByText('alpha');
    await user.type(screen.getByLabelText('Search sessions'), 'beta');
    await waitFor(() => expect(names()).toEqual(['beta']));
    await user.click(within(screen.getByTestId('session-row')).getByRole('button', { name: 'Delete' }));
    const dialog = await screen.findByRole('dialog', { name: 'Confirm deleting: beta' });
    const schedule = () => screen.queryAllByRole('columnheader', { name: 'Schedule', hidden: true }).length;
    expect(schedule()).toBe(from > 574 ? 1 : 0);
    act(() => window.resize(to));
    expect(schedule()).toBe(to > 574 ? 1 : 0);
    // The same element: nothing was mounted again.
    expect(screen.getByRole('dialog', { name: 'Confirm deleting: beta' })).toBe(dialog);
    expect(screen.getByLabelText('Search sessions')).toHaveValue('beta');
    // The rest of the page is hidden from roles behind the dialog: the rows by their test id.
    expect(screen.getAllByTestId('session-row').map((r) => r.textContent)).toEqual([
      expect.stringContaining('beta'),
    ]);
  });

  it('moves a row when a realtime message says its run completed', async () => {
    const { client } = open();
    await screen.findByText('alpha');
    applyRunMessage(client, { action: 'run.completed', uuid: 'a', run_uuid: 'r' });
    await waitFor(() => expect(screen.getByText('alpha').dataset.state).toBe('ok'));
  });
});
