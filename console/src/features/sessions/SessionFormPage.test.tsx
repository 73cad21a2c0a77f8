import { configure, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { stubApi, type ApiRoutes } from '../../test-support/api-stub';
import { stubWindowWidth } from '../../test-support/media';
import { clearToasts, renderPage } from '../../test-support/render';
import SessionFormPage from './SessionFormPage';
import { sessionDetail, sessionWorkflow } from './testing';

vi.setConfig({ testTimeout: 90_000 });
configure({ asyncUtilTimeout: 15_000 });

const WORKFLOW = {
  uuid: 'w-1',
  name: 'ndvi',
  version: '1.0.0',
  tags: [],
  nodes: [],
  edges: [],
  switches: [],
  sandboxes: [
    {
      sandbox_id: 'n1',
      sandbox_name: 'fetch',
      owner: 'u',
      sandbox_db: 'sb',
      continue_on_fail: false,
      variables: [{ name: 'AREA', value: 'alps' }],
      linked_to: [],
      conditions: [],
    },
  ],
};

function api(extra: ApiRoutes = {}) {
  return stubApi({
    'GET /session/workflows': () => ({
      result: [sessionWorkflow(), sessionWorkflow({ uuid: 'w-2', name: 'broken', valid: false })],
    }),
    'GET /group/name': () => ({ result: [{ id: 'g-1', name: 'research' }] }),
    'GET /contact': () => ({ result: [{ email: 'Ann@Example.org ' }] }),
    'GET /cluster': () => ({ result: [{ uuid: 'c-1', label: 'edge-1' }] }),
    'GET /workflow/w-1': () => ({ result: WORKFLOW }),
    ...extra,
  });
}

const choose = async (user: ReturnType<typeof userEvent.setup>, label: string, option: string) => {
  await user.click(screen.getByRole('combobox', { name: label }));
  await user.click(await screen.findByRole('option', { name: option }));
};

beforeEach(() => {
  stubWindowWidth(1400);
  clearToasts();
});
afterEach(() => vi.unstubAllGlobals());

describe('the session form', () => {
  it('keeps Save and Start Now disabled until name, workflow and group are set; invalid workflows cannot be chosen', async () => {
    api();
    const user = userEvent.setup();
    renderPage(<SessionFormPage />, { url: '/session/create', path: '/session/create' });
    const save = await screen.findByRole('button', { name: 'Save' });
    const start = screen.getByRole('button', { name: 'Start Now' });
    expect([save, start].map((b) => b.hasAttribute('disabled'))).toEqual([true, true]);
    await user.type(screen.getByLabelText(/^Name/), 'nightly');
    await user.click(screen.getByRole('combobox', { name: 'Workflow' }));
    expect(await screen.findByRole('option', { name: /broken/ })).toHaveAttribute('aria-disabled', 'true');
    await user.click(screen.getByRole('option', { name: /ndvi/ }));
    expect(save).toBeDisabled();
    await choose(user, 'Group', 'research');
    await waitFor(() => expect(save).toBeEnabled());
    expect(start).toBeEnabled();
    // A resource off its step disables both again.
    const cpu = await screen.findByLabelText('CPU (cores)');
    await user.clear(cpu);
    await user.type(cpu, '0.7');
    expect(save).toBeDisabled();
    expect(start).toBeDisabled();
  });

  it("refuses a schedule whose 'until' is before its start with 'Invalid date / Error: invalid period'", async () => {
    const user = userEvent.setup();
    const calls = api({
      'GET /schedule/s-1': () => ({
        result: sessionDetail({
          schedules: [
            {
              start: '2026-12-01T10:00:00.000Z',
              periodic: true,
              periodic_label: 'daily',
              periodic_value: 1,
              end: '2026-11-01T10:00:00.000Z',
            },
          ],
        }),
      }),
      'PUT /session/s-1': () => ({ result: { uuid: 's-1' } }),
    });
    renderPage(<SessionFormPage />, { url: '/schedule/s-1', path: '/schedule/:uuid' });
    await user.click(await screen.findByRole('button', { name: 'Update' }));
    expect(await screen.findByText('Error: invalid period')).toBeInTheDocument();
    expect(screen.getByText('Invalid date')).toBeInTheDocument();
    expect(calls.some((c) => c.key === 'PUT /session/s-1')).toBe(false);
  });

  it('edits a saved session: the workflow is locked, Update sends the payload and new e-mails become contacts', async () => {
    const calls = api({
      'GET /schedule/s-1': () => ({
        result: sessionDetail({
          notifications: ['bob@example.org'],
          sandbox_resources: { fetch: { cpu: 1000, memory: 1024, disk: 512 } },
        }),
      }),
      'PUT /session/s-1': () => ({ result: { uuid: 's-1' } }),
      'PUT /contact': () => ({ result: true }),
    });
    const user = userEvent.setup();
    renderPage(<SessionFormPage />, { url: '/schedule/s-1', path: '/schedule/:uuid' });
    expect(await screen.findByRole('heading', { name: 'Edit Session' })).toBeInTheDocument();
    expect(screen.getByRole('combobox', { name: 'Workflow' })).toHaveAttribute('aria-disabled', 'true');
    const update = screen.getByRole('button', { name: 'Update' });
    await waitFor(() => expect(update).toBeEnabled());
    await user.click(update);
    await screen.findByText('Session saved successfully.');
    const body = calls.find((c) => c.key === 'PUT /session/s-1')!.body as Record<string, unknown>;
    expect(body).toMatchObject({
      uuid: 's-1',
      workflow_uuid: 'w-1',
      group: 'g-1',
      notifications: ['bob@example.org'],
      session_variables: { fetch: [{ name: 'AREA', value: 'alps' }] },
      sandbox_resources: { fetch: { cpu: 1000, memory: 1024, disk: 512 } },
    });
    await waitFor(() =>
      expect(calls.find((c) => c.key === 'PUT /contact')?.body).toEqual({
        contacts: [{ email: 'Ann@Example.org ' }, { email: 'bob@example.org' }],
      }),
    );
    const chips = within(
      screen.getByRole('combobox', { name: 'E-mails' }).closest('.MuiAutocomplete-root') as HTMLElement,
    );
    expect(chips.getByText('bob@example.org')).toBeInTheDocument();
  });
});
