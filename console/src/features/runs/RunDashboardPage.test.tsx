import { configure, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { stubApi } from '../../test-support/api-stub';
import { stubWindowWidth } from '../../test-support/media';
import { clearToasts, renderPage } from '../../test-support/render';
import { run, sandboxStatus } from '../sessions/testing';
import type { Run, SandboxStatus } from '../sessions/types';
import { FakeWebSocket, installFakeWebSocket } from '../shell/realtime/fake-websocket';
import { stubReactFlowDom } from '../workflows/testing';
import RunDashboardPage from './RunDashboardPage';

vi.setConfig({ testTimeout: 90_000 });
configure({ asyncUtilTimeout: 20_000 });

const STATUSES: SandboxStatus['status'][] = [
  'WAITING',
  'INIT',
  'RUNNING',
  'COMPLETED',
  'ERROR',
  'PAUSED',
  'STOPPED',
  'SKIPPING',
];
const node = (i: number) => ({
  id: `n${i}`,
  name: `step${i}`,
  x: i * 150,
  y: 0,
  src_id: 'sb',
  owner: 'u',
  continueOnFail: false,
  variables: [],
});

function aRun(): Run {
  return run({
    uuid: 'r-1',
    name: 'nightly #3',
    status: 'RUNNING',
    workflow: {
      name: 'ndvi',
      version: '1.0.0',
      nodes: STATUSES.map((_s, i) => node(i)),
      switches: [],
      edges: [{ id: 'e1', from: 'start', to: 'n0', type: 'start' }],
      conditionEdges: [],
    },
    sandbox_statuses: STATUSES.map((status, i) =>
      sandboxStatus({
        id: `n${i}`,
        name: `step${i}`,
        status,
        ...(i === 2
          ? {
              sub_sandbox: [
                { name: 'step2(0)', status: 'RUNNING' as const, history: [], cluster_manager_host: '' },
                { name: 'step2(1)', status: 'QUEUED' as const, history: [], cluster_manager_host: '' },
              ],
            }
          : {}),
      }),
    ),
    history: [{ username: 'ann', sandbox: '', action: 'start', time: '2026-11-20T10:00:00Z' }],
  });
}

const open = () =>
  renderPage(<RunDashboardPage />, {
    url: '/dashboard/session/s-1/r-1',
    path: '/dashboard/session/:uuid/:run',
  });

beforeEach(() => {
  stubWindowWidth(1400);
  stubReactFlowDom();
  installFakeWebSocket();
  clearToasts();
});
afterEach(() => vi.unstubAllGlobals());

describe('the run dashboard', () => {
  it('colours each sandbox by its status, per the legend, with the instances in its status bar', async () => {
    stubApi({ 'GET /run/r-1': () => ({ result: aRun() }) });
    open();
    await screen.findByRole('heading', { name: 'nightly #3' });
    const nodes = await screen.findAllByTestId('run-node');
    expect(nodes.map((n) => [n.getAttribute('aria-label'), n.dataset.status])).toEqual([
      ['step0: Waiting', 'waiting'],
      ['step1: Initializing', 'initializing'],
      ['step2: Running', 'running'],
      ['step3: Completed', 'completed'],
      ['step4: Error', 'error'],
      ['step5: Paused', 'paused'],
      ['step6: Stopped', 'stopped'],
      ['step7: Skipped', 'skipped'],
    ]);
    const legend = screen.getByRole('list', { name: 'Legend' });
    expect(
      within(legend)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(['Waiting', 'Initializing', 'Running', 'Completed', 'Error', 'Paused', 'Stopped', 'Skipped']);
    const bar = within(nodes[2]!).getByTestId('status-bar');
    expect(bar.children).toHaveLength(2);
  });

  it("reads the first sandbox's log on the log socket and says 'No log found for sandbox' when there is none", async () => {
    stubApi({ 'GET /run/r-1': () => ({ result: aRun() }) });
    open();
    await waitFor(() =>
      expect(FakeWebSocket.instances.some((s) => s.url.includes('/api/v0/log/'))).toBe(true),
    );
    const socket = FakeWebSocket.instances.find((s) => s.url.includes('/api/v0/log/'))!;
    expect(new URL(socket.url).pathname).toBe('/api/v0/log/r-1/n0/step0');
    socket.serverOpens();
    socket.serverSends({ error: 'No log found for sandbox' });
    expect(await screen.findByText('No log found for sandbox')).toBeInTheDocument();
    // Some sandbox is beyond waiting/init: the whole log can be downloaded.
    expect(screen.getByRole('link', { name: 'Download' })).toHaveAttribute(
      'href',
      '/api/v0/file/r-1/n0/step0',
    );
  });

  it("lists on the Variables tab what each sandbox ran with (GET /run/{uuid}/variables), the graph's selection narrowing it; a failure offers a retry", async () => {
    let answers = 0;
    const calls = stubApi({
      'GET /run/r-1': () => ({ result: aRun() }),
      'GET /run/r-1/variables': () =>
        ++answers === 1
          ? { status: 502, error: 'argo-server could not give the workflow.', code: 'argo_failed' }
          : {
              result: {
                compiled: true,
                sandboxes: [
                  { id: 'n0', name: 'step0', variables: [{ name: 'A', value: '1', source: 'session' }] },
                  { id: 'n1', name: 'step1', variables: [{ name: 'B', value: '2', source: 'sandbox' }] },
                ],
              },
            },
    });
    open();
    await screen.findByRole('heading', { name: 'nightly #3' });
    expect(calls.some((c) => c.key === 'GET /run/r-1/variables')).toBe(false);
    fireEvent.click(screen.getByRole('tab', { name: 'Variables' }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(
      'The variables could not be loaded: argo-server could not give the workflow.',
    );
    fireEvent.click(within(alert).getByRole('button', { name: 'Retry' }));
    const sections = async () =>
      (await screen.findAllByRole('region', { name: /^Variables of / })).map((r) =>
        r.getAttribute('aria-label'),
      );
    expect(await sections()).toEqual(['Variables of step0', 'Variables of step1']);
    expect(screen.getByText('Session override')).toBeInTheDocument();

    fireEvent.click((await screen.findAllByTestId('run-node'))[1]!);
    await waitFor(async () => expect(await sections()).toEqual(['Variables of step1']));
    fireEvent.click(screen.getByRole('button', { name: 'Show all sandboxes' }));
    await waitFor(async () => expect(await sections()).toEqual(['Variables of step0', 'Variables of step1']));
  });

  it('shows the invalid-run state when the run is not found (404)', async () => {
    stubApi({ 'GET /run/r-1': () => ({ status: 404, error: 'Run not found', code: 'not_found' }) });
    open();
    expect(await screen.findByTestId('invalid-run')).toHaveTextContent('Invalid run');
  });
});
