import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderWithProviders } from '../../test-support/render';
import { run, sandboxStatus } from '../sessions/testing';
import type { HistoryEntry } from '../sessions/types';
import { HistoryTab } from './HistoryTab';

const entry = (over: Partial<HistoryEntry>): HistoryEntry => ({
  username: '',
  sandbox: '',
  action: 'created',
  time: '2026-11-20T10:00:00Z',
  ...over,
});

/** The text of each history line after its date: '<who> · <action>'. */
const lines = () =>
  within(screen.getByRole('list', { name: 'History' }))
    .getAllByRole('listitem')
    .map((li) => li.querySelector('p')!.textContent);

describe('the history tab (spec 2 §3: username or sandbox, action, time)', () => {
  it.each<[string, HistoryEntry, string]>([
    [
      "a user's action by the username the API serves",
      entry({ username: 'bob@example.org', action: 'retry' }),
      'bob@example.org · retry',
    ],
    [
      'a user that is gone by the id the API falls back to',
      entry({ username: '4c4afab8-0000-4000-8000-000000000001', action: 'pause' }),
      '4c4afab8-0000-4000-8000-000000000001 · pause',
    ],
    ["a sandbox's entry by the sandbox", entry({ sandbox: 'step1', action: 'RUNNING' }), 'step1 · RUNNING'],
    ['an entry of neither by the platform', entry({ action: 'COMPLETED' }), 'Sandflow · COMPLETED'],
  ])('names %s', (_, h, shown) => {
    renderWithProviders(<HistoryTab run={run({ history: [h] })} />);
    expect(lines()).toEqual([shown]);
  });

  it("merges the run's and its sandboxes' entries oldest first, crediting each to who did it", () => {
    renderWithProviders(
      <HistoryTab
        run={run({
          history: [
            entry({ username: 'ann@example.org', action: 'created', time: '2026-11-20T10:00:00Z' }),
            entry({ username: 'bob@example.org', action: 'stop', time: '2026-11-20T10:02:00Z' }),
          ],
          sandbox_statuses: [
            sandboxStatus({
              name: 'step0',
              history: [entry({ action: 'RUNNING', time: '2026-11-20T10:01:00Z' })],
            }),
          ],
        })}
      />,
    );
    expect(lines()).toEqual(['ann@example.org · created', 'step0 · RUNNING', 'bob@example.org · stop']);
  });
});
