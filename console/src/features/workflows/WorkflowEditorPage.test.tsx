import { configure, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { stubApi, type ApiRoutes } from '../../test-support/api-stub';
import { aMe } from '../../test-support/fixtures';
import { stubWindowWidth } from '../../test-support/media';
import { clearToasts, renderPage } from '../../test-support/render';
import { aSandbox } from '../sandboxes/testing';
import { SANDBOX_MIME } from './dnd';
import { toRef } from './Palette';
import { aSavedWorkflow, stubReactFlowDom } from './testing';
import WorkflowEditorPage from './WorkflowEditorPage';

// MUI and React Flow in jsdom are slow on a busy machine: generous waits, no timing asserted.
vi.setConfig({ testTimeout: 60_000 });
configure({ asyncUtilTimeout: 10_000 });

const SAVED = aSavedWorkflow(7);
const PALETTE = [aSandbox(1, { name: 'ingest' }), aSandbox(2, { name: 'worker' })];

function api(extra: ApiRoutes = {}) {
  return stubApi({
    'GET /me': () => ({ result: aMe() }),
    'GET /tags': () => ({ result: [] }),
    'GET /sandbox': () => ({ result: { groups: [{ name: 'mine', sandboxes: PALETTE }] } }),
    [`GET /workflow/${SAVED.uuid}`]: () => ({ result: SAVED }),
    ...extra,
  });
}

function open(url = '/workflow/create') {
  return renderPage(<WorkflowEditorPage />, {
    url,
    path: url === '/workflow/create' ? '/workflow/create' : '/workflow/:action/:uuid',
  });
}

const nodes = () => screen.queryAllByTestId('sandbox-node');
const flowNode = (name: string) => screen.getByLabelText(name).closest('.react-flow__node')!;
const menuItem = (name: string) => screen.findByRole('menuitem', { name });
const save = () => screen.getByRole('button', { name: /^(Save|Update)$/ });
const findSave = () => screen.findByRole('button', { name: /^(Save|Update)$/ });

async function addFromPalette(user: ReturnType<typeof userEvent.setup>, name: string) {
  await user.click(await screen.findByRole('button', { name: `Add ${name} to the canvas` }));
}
async function startArrow(user: ReturnType<typeof userEvent.setup>, from: string, label = 'Add Arrow') {
  fireEvent.contextMenu(flowNode(from));
  await user.click(await menuItem(label));
}

beforeEach(() => {
  stubWindowWidth(1400);
  stubReactFlowDom();
  clearToasts();
});
afterEach(() => vi.unstubAllGlobals());

describe('the workflow editor', () => {
  it('adds sandboxes from the palette, by its button and by a drop on the canvas', async () => {
    api();
    const user = userEvent.setup();
    open();
    await addFromPalette(user, 'ingest');
    expect(nodes()).toHaveLength(1);
    const canvas = document.querySelector('.react-flow')!.parentElement!;
    const payload = JSON.stringify(toRef(PALETTE[1]!));
    fireEvent.drop(canvas, {
      dataTransfer: { getData: (type: string) => (type === SANDBOX_MIME ? payload : '') },
    });
    expect(screen.getByLabelText('worker')).toBeInTheDocument();
    expect(nodes()).toHaveLength(2);
  });

  it('keeps Save disabled while there is no node', async () => {
    api();
    const user = userEvent.setup();
    open();
    expect(await findSave()).toBeDisabled();
    await addFromPalette(user, 'ingest');
    expect(save()).toBeEnabled();
  });

  it('enters arrow mode from a node and leaves it with Escape', async () => {
    api();
    const user = userEvent.setup();
    open();
    await addFromPalette(user, 'ingest');
    await startArrow(user, 'ingest');
    expect(screen.getByRole('status')).toHaveTextContent('Click the target of the arrow (Escape cancels)');
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('status')).not.toBeInTheDocument();
  });

  it.each([
    ['a self edge', ['ingest'], [['ingest', 'ingest']], 'Source and destination are the same'],
    [
      'a cycle',
      ['ingest', 'worker'],
      [
        ['ingest', 'worker'],
        ['worker', 'ingest'],
      ],
      'The current edge would create a cycle in the workflow',
    ],
  ])('refuses %s with the spec toast', async (_what, names, arrows, text) => {
    api();
    const user = userEvent.setup();
    open();
    for (const name of names) await addFromPalette(user, name);
    for (const [from, to] of arrows) {
      await startArrow(user, from!);
      fireEvent.click(flowNode(to!));
    }
    const toast = await screen.findByText(text);
    expect(toast.closest('[role=alert]') ?? toast.parentElement).toHaveTextContent('Invalid edge creation');
  });

  it('undoes with Ctrl+Z and redoes with Ctrl+Y and Ctrl+Shift+Z', async () => {
    api();
    const user = userEvent.setup();
    open();
    await addFromPalette(user, 'ingest');
    await addFromPalette(user, 'worker');
    await user.click(document.body);
    await user.keyboard('{Control>}z{/Control}');
    expect(nodes()).toHaveLength(1);
    await user.keyboard('{Control>}z{/Control}');
    expect(nodes()).toHaveLength(0);
    await user.keyboard('{Control>}y{/Control}');
    expect(nodes()).toHaveLength(1);
    await user.keyboard('{Control>}{Shift>}z{/Shift}{/Control}');
    expect(nodes()).toHaveLength(2);
  });

  it('removes the selected node with the Delete key', async () => {
    api();
    const user = userEvent.setup();
    open();
    await addFromPalette(user, 'ingest');
    await addFromPalette(user, 'worker');
    fireEvent.click(flowNode('worker'));
    await user.keyboard('{Delete}');
    expect(nodes()).toHaveLength(1);
    expect(screen.queryByLabelText('worker')).not.toBeInTheDocument();
  });

  it('saves the drawing (201 → the edit route) with the arrow drawn in arrow mode', async () => {
    const calls = api({ 'POST /workflow': () => ({ status: 201, result: SAVED }) });
    const user = userEvent.setup();
    const { router } = open();
    await addFromPalette(user, 'ingest');
    await addFromPalette(user, 'worker');
    await startArrow(user, 'ingest', 'Add Multi Arrow');
    fireEvent.click(flowNode('worker'));
    await user.type(screen.getByLabelText(/^Name/), 'my_flow');
    await user.click(save());
    await waitFor(() => expect(router.state.location.pathname).toBe(`/workflow/edit/${SAVED.uuid}`));
    const body = calls.find((c) => c.key === 'POST /workflow')!.body as {
      name: string;
      version: string;
      nodes: { name: string; src_id: string }[];
      edges: { type: string; from: string; to: string; instanceNumber?: number }[];
    };
    expect(body).toMatchObject({ name: 'my_flow', version: '1.0.0' });
    expect(body.nodes.map((n) => [n.name, n.src_id])).toEqual([
      ['ingest', PALETTE[0]!.uuid],
      ['worker', PALETTE[1]!.uuid],
    ]);
    expect(body.edges.map((e) => e.type).sort()).toEqual(['multi', 'start']);
    expect(body.edges.find((e) => e.type === 'multi')).toMatchObject({
      instanceType: 'line',
      instanceNumber: 1,
    });
    expect(await screen.findByText('Workflow created successfully.')).toBeInTheDocument();
  });

  it.each([['no name', '', 'Please, enter a valid workflow name']])(
    'refuses to save with %s, before calling the API',
    async (_what, name, text) => {
      const calls = api();
      const user = userEvent.setup();
      open();
      await addFromPalette(user, 'ingest');
      if (name) await user.type(screen.getByLabelText(/^Name/), name);
      await user.click(save());
      expect(await screen.findByText(text)).toBeInTheDocument();
      expect(calls.some((c) => c.method === 'POST')).toBe(false);
    },
  );

  it('keeps the drawing when the API refuses the save, and says so', async () => {
    api({ 'POST /workflow': () => ({ status: 400, error: 'Find two or more sandbox with the same name' }) });
    const user = userEvent.setup();
    open();
    await addFromPalette(user, 'ingest');
    await user.type(screen.getByLabelText(/^Name/), 'flow');
    await user.click(save());
    expect(
      await screen.findByText(
        /The workflow was not saved: Find two or more sandbox with the same name\. Your drawing is kept/,
      ),
    ).toBeInTheDocument();
    expect(nodes()).toHaveLength(1);
    expect(save()).toBeEnabled();
  });

  it('opens a saved workflow read-only in view mode', async () => {
    api();
    open(`/workflow/view/${SAVED.uuid}`);
    expect(await screen.findByText('View Workflow')).toBeInTheDocument();
    await waitFor(() => expect(nodes()).toHaveLength(2));
    expect(save()).toBeDisabled();
    expect(screen.queryByRole('complementary', { name: 'Sandboxes' })).not.toBeInTheDocument();
    expect(
      screen.getByText('Read-only: you can look at this workflow but not change it.'),
    ).toBeInTheDocument();
  });

  it('is view-only on a phone and says so', async () => {
    stubWindowWidth(400);
    api();
    open(`/workflow/edit/${SAVED.uuid}`);
    expect(await screen.findByText(/The editor is view-only on a phone/)).toBeInTheDocument();
    expect(save()).toBeDisabled();
  });

  it('asks before leaving with unsaved changes', async () => {
    api();
    const user = userEvent.setup();
    const { router } = open();
    await addFromPalette(user, 'ingest');
    await user.click(screen.getByRole('button', { name: 'Back to List' }));
    const dialog = await screen.findByRole('dialog');
    expect(
      within(dialog).getByText('Your workflow may have no saved update, exit anyway?'),
    ).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Exit' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/workflow/list'));
  });
});
