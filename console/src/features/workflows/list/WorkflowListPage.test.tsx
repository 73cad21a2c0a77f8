import { act, configure, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { stubApi, type ApiRoutes } from '../../../test-support/api-stub';
import { aMe } from '../../../test-support/fixtures';
import { stubWindowWidth } from '../../../test-support/media';
import { clearToasts, renderPage } from '../../../test-support/render';
import { aWorkflowItem } from '../testing';
import type { WorkflowItem } from '../types';
import WorkflowListPage from './WorkflowListPage';

// MUI tables in jsdom are slow on a busy machine: generous waits, no timing asserted.
vi.setConfig({ testTimeout: 60_000 });
configure({ asyncUtilTimeout: 10_000 });

const OTHER = { read: true, write: false, execute: true, owner: false };
const MINE = aWorkflowItem(1, { name: 'alpha' });
const THEIRS = aWorkflowItem(2, { name: 'beta', prettyOwner: 'Bob Martin', user_access: OTHER });
const GROUPS = [
  { id: 'g1', name: 'research' },
  { id: 'g2', name: 'ops' },
];

function api(rows: WorkflowItem[], extra: ApiRoutes = {}) {
  return stubApi({
    'GET /me': () => ({ result: aMe({ groups: GROUPS }) }),
    'GET /tags': () => ({ result: [{ label: 'etl', color: '#4caf50' }] }),
    'GET /workflow': () => ({ result: { workflows: rows, total: rows.length, page: 0, size: 30 } }),
    ...extra,
  });
}
const open = () => renderPage(<WorkflowListPage />, { url: '/workflow/list', path: '/workflow/list' });

beforeEach(() => {
  stubWindowWidth(1400);
  clearToasts();
});
afterEach(() => vi.unstubAllGlobals());

describe('the workflow list', () => {
  it('asks the server for the first page of 30 sorted by name, then by search and filters', async () => {
    const calls = api([MINE, THEIRS]);
    const user = userEvent.setup();
    open();
    await screen.findByText('alpha');
    expect(Object.fromEntries(calls.find((c) => c.key === 'GET /workflow')!.query)).toEqual({
      page: '0',
      size: '30',
      sort: 'name',
      order: 'asc',
    });
    await user.type(screen.getByLabelText('Search workflows'), 'ALP');
    await user.click(screen.getByRole('switch', { name: 'Mine' }));
    await waitFor(() => {
      const last = calls.filter((c) => c.key === 'GET /workflow').at(-1)!.query;
      expect([last.get('search'), last.get('mine')]).toEqual(['ALP', 'true']);
    });
  });

  it.each([
    ['alpha', 'Edit alpha', '/workflow/edit/'],
    ['beta', 'View beta', '/workflow/view/'],
  ])('links %s to %s by ownership', async (name, label, href) => {
    api([MINE, THEIRS]);
    open();
    const link = await screen.findByRole('link', { name: label });
    expect(link.getAttribute('href')).toMatch(href);
    expect(screen.getByRole('checkbox', { name: `Select ${name}` })).toHaveProperty(
      'disabled',
      name === 'beta',
    );
  });

  it('selects only owned rows with select-all, and deletes them after confirming', async () => {
    const calls = api([MINE, THEIRS], { 'DELETE /workflow': () => ({ result: { workflows: [MINE.uuid] } }) });
    const user = userEvent.setup();
    open();
    await user.click(await screen.findByRole('checkbox', { name: 'Select all my workflows' }));
    expect(screen.getByRole('checkbox', { name: 'Select alpha' })).toBeChecked();
    expect(screen.getByRole('checkbox', { name: 'Select beta' })).not.toBeChecked();
    await user.click(screen.getByRole('button', { name: /Delete Selected \(1\)/ }));
    const dialog = await screen.findByRole('dialog');
    expect(dialog).toHaveTextContent('Confirm deleting: alpha');
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() =>
      expect(calls.find((c) => c.key === 'DELETE /workflow')?.body).toEqual({ workflows: [MINE.uuid] }),
    );
    expect(await screen.findByText('Workflow deleted successfully.')).toBeInTheDocument();
  });

  it.each([
    ['desktop to mobile', 1400, 574],
    ['mobile to desktop', 574, 1400],
  ])(
    'keeps the search, the details and an open dialog when the window crosses 574 px (%s)',
    async (_name, from, to) => {
      const window = stubWindowWidth(from);
      api([MINE, THEIRS]);
      const user = userEvent.setup();
      open();
      await user.type(await screen.findByLabelText('Search workflows'), 'alp');
      await user.click(await screen.findByRole('button', { name: 'Show details of alpha' }));
      await screen.findByTestId('workflow-details');
      await user.click(screen.getByRole('button', { name: 'Delete alpha' }));
      const dialog = await screen.findByRole('dialog');
      const owner = () => screen.queryAllByRole('columnheader', { name: 'Owner', hidden: true }).length;
      expect(owner()).toBe(from > 574 ? 1 : 0);
      act(() => window.resize(to));
      expect(owner()).toBe(to > 574 ? 1 : 0);
      expect(screen.getByRole('dialog')).toBe(dialog);
      expect(dialog).toHaveTextContent('Confirm deleting: alpha');
      expect(screen.getByTestId('workflow-details')).toBeInTheDocument();
      expect(screen.getByLabelText('Search workflows')).toHaveValue('alp');
    },
  );

  it.each([
    ['Enter saves a changed name', '{Enter}', 'gamma', true],
    ['Escape cancels', '{Escape}', 'gamma', false],
    ['an unchanged name is not sent', '{Enter}', '', false],
  ])('inline rename: %s', async (_what, key, typed, sent) => {
    const calls = api([MINE], { [`PUT /workflow/${MINE.uuid}/name`]: () => ({ result: MINE }) });
    const user = userEvent.setup();
    open();
    await user.click(await screen.findByRole('button', { name: 'Rename alpha' }));
    const field = screen.getByRole('textbox', { name: 'Rename alpha' });
    if (typed) {
      await user.clear(field);
      await user.type(field, typed);
    }
    await user.keyboard(key);
    expect(screen.queryByRole('textbox', { name: 'Rename alpha' })).not.toBeInTheDocument();
    if (sent)
      await waitFor(() => expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ name: 'gamma' }));
    else expect(calls.some((c) => c.method === 'PUT')).toBe(false);
  });

  it('saves a visibility change at once', async () => {
    const calls = api([MINE], { [`PUT /workflow/${MINE.uuid}/visibility`]: () => ({ result: MINE }) });
    const user = userEvent.setup();
    open();
    await user.click(await screen.findByRole('button', { name: 'Show details of alpha' }));
    const details = await screen.findByTestId('workflow-details');
    await user.click(within(details).getByRole('combobox', { name: 'Visibility' }));
    await user.click(await screen.findByRole('option', { name: 'Group' }));
    await waitFor(() => expect(calls.filter((c) => c.method === 'PUT')).toHaveLength(1));
    expect(calls.filter((c) => c.method === 'PUT').map((c) => c.body)).toEqual([
      { type: 'group', groups: [] },
    ]);
  });

  it.each([
    ['no workflow at all', [], '', 'You have no workflow'],
    ['nothing matching', [], 'zzz', 'No workflow matches the search and filters'],
  ])('empty state: %s', async (_what, rows, search, text) => {
    api(rows);
    const user = userEvent.setup();
    open();
    if (search) await user.type(await screen.findByLabelText('Search workflows'), search);
    expect(await screen.findByText(text)).toBeInTheDocument();
  });

  it('shows a spinner while the list is not downloaded', async () => {
    api([], { 'GET /workflow': () => new Promise(() => {}) });
    open();
    expect(await screen.findByLabelText('Loading workflows')).toBeInTheDocument();
  });

  it('refuses to save workflow variables with an empty value', async () => {
    const calls = api([MINE]);
    const user = userEvent.setup();
    open();
    await user.click(await screen.findByRole('button', { name: 'Show details of alpha' }));
    await user.click(await screen.findByRole('button', { name: 'Variables of ingest' }));
    const dialog = await screen.findByRole('dialog');
    await user.clear(within(dialog).getByRole('textbox', { name: 'Value' }));
    await user.click(within(dialog).getByRole('button', { name: /save/i }));
    expect(await screen.findByText("Can't save with empty values.")).toBeInTheDocument();
    expect(calls.some((c) => c.method === 'PUT')).toBe(false);
  });
});
