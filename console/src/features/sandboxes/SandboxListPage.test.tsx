import { act, configure, screen, waitFor, within } from '@testing-library/react';
import userEventBase from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { stubApi, type ApiCall, type ApiRoutes } from '../../test-support/api-stub';
import { aMe } from '../../test-support/fixtures';
import { stubWindowWidth } from '../../test-support/media';
import { clearToasts, renderWithProviders } from '../../test-support/render';
import SandboxListPage from './SandboxListPage';
import { aPage, aSandbox, OTHER_ID } from './testing';
import type { Sandbox } from './types';

const userEvent = userEventBase.setup({ delay: null });
// These pages render MUI (and xterm) in jsdom: on a loaded machine a step can take seconds.
configure({ asyncUtilTimeout: 5000 });

const ALPHA = aSandbox(1, { name: 'alpha', variables: [{ name: 'A', value: '1' }], tags: ['geo'] });
const BETA = aSandbox(2, { name: 'beta' });
const SHARED = aSandbox(3, {
  name: 'shared',
  author_id: OTHER_ID,
  author: 'Grace Hopper',
  user_access: { read: true, write: false, execute: true, owner: false },
});

function serve(rows: Sandbox[] = [ALPHA, BETA, SHARED], extra: ApiRoutes = {}) {
  return stubApi({
    'GET /me': () => ({ result: aMe() }),
    'GET /tags': () => ({ result: [{ label: 'geo', color: '#ff0000' }] }),
    'GET /sandbox': () => ({ result: aPage(rows, 42) }),
    ...extra,
  });
}
const listCalls = (calls: ApiCall[]) => calls.filter((c) => c.key === 'GET /sandbox');
const lastList = (calls: ApiCall[]) => Object.fromEntries(listCalls(calls).at(-1)!.query);
const row = (name: string) => screen.getByText(name).closest('tr') as HTMLElement;

afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
  clearToasts();
});

// jsdom renders MUI slowly when every test file runs at once.
describe('/sandbox/list', { timeout: 60_000 }, () => {
  it('asks the first page of 30 newest first, and pages, sizes and sorts on the server', async () => {
    const calls = serve();
    renderWithProviders(<SandboxListPage />);
    expect(await screen.findByRole('heading', { name: 'Sandbox List' })).toBeInTheDocument();
    await screen.findByText('alpha');
    expect(lastList(calls)).toEqual({ page: '0', size: '30', sort: 'creation_date', order: 'desc' });
    expect(screen.getByText('1–30 of 42')).toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'Go to next page' }));
    await waitFor(() => expect(lastList(calls).page).toBe('1'));

    await userEvent.click(screen.getByRole('combobox', { name: /Rows per page/ }));
    expect(screen.getAllByRole('option').map((o) => o.textContent)).toEqual(['10', '30', '50']);
    await userEvent.click(screen.getByRole('option', { name: '10' }));
    await waitFor(() => expect(lastList(calls)).toMatchObject({ page: '0', size: '10' }));

    await userEvent.click(screen.getByRole('button', { name: 'Name' }));
    await waitFor(() => expect(lastList(calls)).toMatchObject({ sort: 'name', order: 'asc' }));
    await userEvent.click(screen.getByRole('button', { name: 'Name' }));
    await waitFor(() => expect(lastList(calls)).toMatchObject({ sort: 'name', order: 'desc' }));
    for (const column of ['Version', 'Owner', 'Architecture', 'Creation date'])
      expect(screen.getByRole('button', { name: column })).toBeInTheDocument();
  });

  it('sends the search after the typing pauses, and Mine, visibility and tag filters', async () => {
    const calls = serve();
    renderWithProviders(<SandboxListPage />);
    await screen.findByText('alpha');
    await userEvent.type(screen.getByRole('searchbox', { name: 'Search' }), 'alp');
    await waitFor(() => expect(lastList(calls).search).toBe('alp'));
    expect(listCalls(calls).filter((c) => c.query.get('search') === 'a')).toHaveLength(0);

    await userEvent.click(screen.getByRole('switch', { name: 'Mine' }));
    await waitFor(() => expect(lastList(calls).mine).toBe('true'));

    await userEvent.click(screen.getByRole('combobox', { name: 'Visibility' }));
    expect(screen.getAllByRole('option').map((o) => o.textContent)).toEqual(['All', 'Public', 'Private']);
    await userEvent.click(screen.getByRole('option', { name: 'Public' }));
    await waitFor(() => expect(lastList(calls).visibility).toBe('public'));

    await userEvent.click(screen.getByRole('combobox', { name: 'Tag' }));
    await userEvent.click(screen.getByRole('option', { name: 'geo' }));
    await waitFor(() =>
      expect(lastList(calls)).toEqual({
        page: '0',
        size: '30',
        sort: 'creation_date',
        order: 'desc',
        search: 'alp',
        mine: 'true',
        visibility: 'public',
        tag: 'geo',
      }),
    );
  });

  it('offers Create new Sandbox when there is none', async () => {
    serve([]);
    renderWithProviders(<SandboxListPage />);
    const empty = await screen.findByTestId('empty');
    expect(within(empty).getByRole('link', { name: 'Create new Sandbox' })).toHaveAttribute(
      'href',
      '/sandbox/create',
    );
  });

  it('shows an error with Retry when the list cannot be loaded', async () => {
    let fail = true;
    serve([ALPHA], {
      'GET /sandbox': () =>
        fail ? { status: 503, error: 'informer not synced' } : { result: aPage([ALPHA]) },
    });
    renderWithProviders(<SandboxListPage />);
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'The sandboxes could not be loaded. informer not synced',
    );
    fail = false;
    await userEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByText('alpha')).toBeInTheDocument();
  });

  it('gives owned rows a checkbox, rename, variables and delete; others only view and clone', async () => {
    serve();
    renderWithProviders(<SandboxListPage />);
    await screen.findByText('alpha');
    const mine = within(row('alpha'));
    expect(mine.getByRole('checkbox', { name: 'Select alpha' })).toBeInTheDocument();
    expect(mine.getByRole('link', { name: 'Edit alpha' })).toHaveAttribute(
      'href',
      `/sandbox/edit/${ALPHA.uuid}`,
    );
    expect(mine.getByRole('button', { name: 'Delete alpha' })).toBeInTheDocument();
    const theirs = within(row('shared'));
    expect(theirs.queryByRole('checkbox')).not.toBeInTheDocument();
    expect(theirs.queryByRole('button', { name: 'shared' })).not.toBeInTheDocument();
    expect(theirs.queryByRole('button', { name: 'Delete shared' })).not.toBeInTheDocument();
    expect(theirs.getByRole('link', { name: 'View shared' })).toHaveAttribute(
      'href',
      `/sandbox/view/${SHARED.uuid}`,
    );
    expect(theirs.getByRole('button', { name: 'Clone shared' })).toBeEnabled();

    await userEvent.click(within(row('beta')).getByRole('button', { name: 'Show description' }));
    expect(await screen.findByText('Sandbox number 2')).toBeInTheDocument();
  });

  it.each([
    ['desktop to mobile', 1400, 574],
    ['mobile to desktop', 574, 1400],
  ])(
    'keeps the search, the page, a description and an open dialog when the window crosses 574 px (%s)',
    async (_name, from, to) => {
      const window = stubWindowWidth(from);
      const calls = serve();
      renderWithProviders(<SandboxListPage />);
      await screen.findByText('alpha');
      await userEvent.type(screen.getByRole('searchbox', { name: 'Search' }), 'a');
      await waitFor(() => expect(lastList(calls).search).toBe('a'));
      await userEvent.click(screen.getByRole('button', { name: 'Go to next page' }));
      await waitFor(() => expect(lastList(calls).page).toBe('1'));
      await userEvent.click(within(row('beta')).getByRole('button', { name: 'Show description' }));
      await screen.findByText('Sandbox number 2');
      await userEvent.click(within(row('alpha')).getByRole('button', { name: 'Delete alpha' }));
      const dialog = await screen.findByRole('dialog', { name: 'Confirm deleting: alpha' });
      const owner = () => screen.queryAllByRole('columnheader', { name: 'Owner', hidden: true }).length;
      expect(owner()).toBe(from > 574 ? 1 : 0);
      const asked = listCalls(calls).length;
      act(() => window.resize(to));
      expect(owner()).toBe(to > 574 ? 1 : 0);
      expect(screen.getByRole('dialog', { name: 'Confirm deleting: alpha' })).toBe(dialog);
      expect(screen.getByText('Sandbox number 2')).toBeInTheDocument();
      expect(screen.getByRole('searchbox', { name: 'Search', hidden: true })).toHaveValue('a');
      expect(screen.getByText('31–42 of 42')).toBeInTheDocument();
      expect(listCalls(calls)).toHaveLength(asked);
    },
  );

  it.each([
    ['renamed{Enter}', 'renamed'],
    ['{Escape}', null],
    ['{Enter}', null], // unchanged
    ['{Backspace>5}{Enter}', null], // empty
  ])('inline rename: typing %s saves %s', async (keys, saved) => {
    const calls = serve(undefined, { 'PUT /sandbox/{uuid}/name': () => undefined });
    renderWithProviders(<SandboxListPage />);
    await userEvent.click(await screen.findByRole('button', { name: 'alpha' }));
    const field = screen.getByRole('textbox', { name: 'Rename alpha' });
    if (saved) await userEvent.clear(field);
    await userEvent.type(field, keys);
    await waitFor(() =>
      expect(screen.queryByRole('textbox', { name: 'Rename alpha' })).not.toBeInTheDocument(),
    );
    const renames = calls.filter((c) => c.method === 'PUT' && c.path.endsWith('/name'));
    expect(renames.map((c) => [c.path, c.body])).toEqual(
      saved ? [[`/sandbox/${ALPHA.uuid}/name`, { name: saved }]] : [],
    );
  });

  it('the variables popover: Save only when changed, no value without a name, and no closing with unsaved changes', async () => {
    const calls = serve(undefined, { [`PUT /sandbox/${ALPHA.uuid}/variables`]: () => ({ result: null }) });
    renderWithProviders(<SandboxListPage />);
    await userEvent.click(await screen.findByRole('button', { name: 'Variables of alpha' }));
    const popover = await screen.findByRole('dialog', { name: 'Variables of alpha' });
    const save = within(popover).getByRole('button', { name: 'Save' });
    expect(save).toBeDisabled();

    await userEvent.click(within(popover).getByRole('button', { name: 'Add variable' }));
    const rows = within(popover).getAllByTestId('variable-row');
    await userEvent.type(within(rows[1]!).getByRole('textbox', { name: 'Value' }), 'orphan');
    await userEvent.click(save);
    expect(await screen.findByText("Can't save with empty values")).toBeInTheDocument();

    await userEvent.keyboard('{Escape}');
    expect(await screen.findByText('You have unsaved changes.')).toBeInTheDocument();
    expect(screen.getByRole('dialog', { name: 'Variables of alpha' })).toBeInTheDocument();

    await userEvent.type(within(rows[1]!).getByRole('textbox', { name: 'Name' }), 'B');
    await userEvent.click(save);
    await waitFor(() =>
      expect(screen.queryByRole('dialog', { name: 'Variables of alpha' })).not.toBeInTheDocument(),
    );
    expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({
      variables: [
        { name: 'A', value: '1' },
        { name: 'B', value: 'orphan' },
      ],
    });
    expect(await screen.findByText('Variables saved correctly.')).toBeInTheDocument();
  });

  it('a 409 on saving variables says the sandbox is used by other workflows', async () => {
    serve(undefined, {
      [`PUT /sandbox/${ALPHA.uuid}/variables`]: () => ({ status: 409, error: 'conflict' }),
    });
    renderWithProviders(<SandboxListPage />);
    await userEvent.click(await screen.findByRole('button', { name: 'Variables of alpha' }));
    const popover = await screen.findByRole('dialog');
    await userEvent.click(within(popover).getByRole('button', { name: 'Remove variable' }));
    await userEvent.click(within(popover).getByRole('button', { name: 'Save' }));
    expect(
      await screen.findByText("Sandbox can't be update because in use in external workflows."),
    ).toBeInTheDocument();
  });

  it('deletes after confirming, then offers the sandboxes workflows still use for a forced deletion', async () => {
    const deletes: ApiCall[] = [];
    serve(undefined, {
      'DELETE /sandbox': (call) => {
        deletes.push(call);
        return call.query.get('force') === 'true'
          ? { result: { deleted_sandbox: (call.body as { sandboxes: string[] }).sandboxes, workflows: [] } }
          : {
              result: {
                deleted_sandbox: [BETA.uuid],
                workflows: [
                  { uuid: 'w1', name: 'ndvi', sandboxes: [ALPHA.uuid] },
                  { uuid: 'w2', name: 'mosaic', sandboxes: [ALPHA.uuid, 'not-asked'] },
                ],
              },
            };
      },
    });
    renderWithProviders(<SandboxListPage />);
    await userEvent.click(await screen.findByRole('checkbox', { name: 'Select alpha' }));
    await userEvent.click(screen.getByRole('checkbox', { name: 'Select beta' }));
    await userEvent.click(screen.getByRole('button', { name: 'Delete Selected (2)' }));
    const confirm = await screen.findByRole('dialog', { name: 'Confirm deleting: alpha, beta' });
    await userEvent.click(within(confirm).getByRole('button', { name: 'Delete' }));

    const forced = await screen.findByRole('dialog', { name: 'Sandboxes used by workflows' });
    expect(within(forced).getByText('Used by: ndvi, mosaic')).toBeInTheDocument();
    expect(within(forced).getByTestId('forced-note')).toHaveTextContent('invalidates those workflows');
    const remove = within(forced).getByRole('button', { name: 'Delete' });
    expect(remove).toBeDisabled();
    await userEvent.click(within(forced).getByRole('checkbox', { name: /alpha/ }));
    await userEvent.click(remove);
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());

    expect(deletes.map((c) => [c.query.get('force'), c.body])).toEqual([
      ['false', { sandboxes: [ALPHA.uuid, BETA.uuid] }],
      ['true', { sandboxes: [ALPHA.uuid] }],
    ]);
    expect(screen.getAllByText('Sandbox deleted correctly.')).toHaveLength(2);
    await act(async () => undefined);
    expect(screen.getByRole('button', { name: 'Delete Selected' })).toBeDisabled();
  });

  it('clones through POST /sandbox/{uuid}/clone', async () => {
    const calls = serve(undefined, {
      [`POST /sandbox/${SHARED.uuid}/clone`]: () => ({ status: 201, result: null }),
    });
    renderWithProviders(<SandboxListPage />);
    await userEvent.click(await screen.findByRole('button', { name: 'Clone shared' }));
    expect(await screen.findByText('Sandbox cloned correctly.')).toBeInTheDocument();
    expect(calls.filter((c) => c.method === 'POST').map((c) => c.path)).toEqual([
      `/sandbox/${SHARED.uuid}/clone`,
    ]);
  });
});
