import { configure, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { stubApi } from '../../test-support/api-stub';
import { stubWindowWidth } from '../../test-support/media';
import { clearToasts, renderPage } from '../../test-support/render';
import { RunsModal } from './RunsModal';
import { run, sessionItem } from './testing';
import type { Run, RunStatus } from './types';

// MUI dialogs in jsdom are slow on a busy machine: generous waits, no timing asserted.
vi.setConfig({ testTimeout: 60_000 });
configure({ asyncUtilTimeout: 10_000 });

const BUTTONS = ['View detail', 'Start', 'Pause', 'Stop', 'Retry from error', 'Restart', 'Delete'];

function open(runs: Run[]) {
  const calls = stubApi({
    'GET /schedule/s-1/run': () => ({ result: runs }),
    'PUT /run/r-1': () => ({ result: { uuid: 'r-1' } }),
  });
  const page = renderPage(
    <RunsModal session={sessionItem({ uuid: 's-1', name: 'nightly' })} onClose={() => {}} />,
    {
      url: '/session/list',
      path: '/session/list',
    },
  );
  return { calls, ...page };
}

beforeEach(() => {
  stubWindowWidth(1400);
  clearToasts();
});
afterEach(() => vi.unstubAllGlobals());

describe('the runs modal', () => {
  it.each<[RunStatus, string[]]>([
    ['RUNNING', ['View detail', 'Pause', 'Stop', 'Restart', 'Delete']],
    ['PAUSED', ['View detail', 'Start', 'Stop', 'Restart', 'Delete']],
    ['ERROR', ['View detail', 'Retry from error', 'Restart', 'Delete']],
    ['COMPLETED', ['View detail', 'Restart', 'Delete']],
  ])('a %s run enables %j', async (status, enabled) => {
    open([run({ uuid: 'r-1', status })]);
    const row = await screen.findByTestId('run-row');
    const states = BUTTONS.map((name) => [
      name,
      within(row).getByRole('button', { name }).hasAttribute('disabled'),
    ]);
    expect(states).toEqual(BUTTONS.map((name) => [name, !enabled.includes(name)]));
  });

  it.each<[string, Partial<Run>, string]>([
    ['the group by its name', { group: 'g-7f3a', group_name: 'research' }, 'research'],
    ['the id of a group that is gone', { group: 'g-7f3a', group_name: '' }, 'g-7f3a'],
    ['- for a run without a group', { group: '', group_name: '' }, '-'],
  ])("shows '-' for the zero end date and %s", async (_, group, shown) => {
    open([run({ uuid: 'r-1', status: 'RUNNING', stop: '0001-01-01T00:00:00Z', ...group })]);
    const row = await screen.findByTestId('run-row');
    const cells = within(row)
      .getAllByRole('cell')
      .map((c) => c.textContent);
    expect(cells.slice(0, 4)).toEqual(['RUNNING', expect.stringMatching(/2026/), '-', shown]);
  });

  it.each([
    ['Pause', 'RUNNING', 'pause'],
    ['Start', 'PAUSED', 'resume'],
    ['Retry from error', 'ERROR', 'retry'],
    ['Delete', 'COMPLETED', 'delete'],
  ] as const)('%s on a %s run sends the action %s', async (button, status, action) => {
    const { calls } = open([run({ uuid: 'r-1', status })]);
    const user = userEvent.setup();
    const row = await screen.findByTestId('run-row');
    await user.click(within(row).getByRole('button', { name: button }));
    await waitFor(() => expect(calls.find((c) => c.key === 'PUT /run/r-1')?.body).toEqual({ action }));
    expect(await screen.findByText('Run request successfully.')).toBeInTheDocument();
  });

  it('keeps retry disabled right after a click (the 1.5 s lock)', async () => {
    open([run({ uuid: 'r-1', status: 'ERROR' })]);
    const user = userEvent.setup();
    const row = await screen.findByTestId('run-row');
    await user.click(within(row).getByRole('button', { name: 'Retry from error' }));
    // The answer has come (no request pending): the lock alone keeps it disabled.
    await screen.findByText('Run request successfully.');
    expect(within(row).getByRole('button', { name: 'Retry from error' })).toBeDisabled();
  });

  it('view detail leads to the run dashboard', async () => {
    open([run({ uuid: 'r-1', status: 'COMPLETED' })]);
    const user = userEvent.setup();
    const row = await screen.findByTestId('run-row');
    await user.click(within(row).getByRole('button', { name: 'View detail' }));
    await waitFor(() =>
      expect(screen.getByTestId('location')).toHaveTextContent('/dashboard/session/s-1/r-1'),
    );
  });
});
