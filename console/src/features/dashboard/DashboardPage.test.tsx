import { configure, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Role } from '../../api/answers';
import { stubApi, type ApiAnswer, type ApiRoutes } from '../../test-support/api-stub';
import { aMe } from '../../test-support/fixtures';
import { stubWindowWidth } from '../../test-support/media';
import { renderWithProviders } from '../../test-support/render';
import { run, sessionItem } from '../sessions/testing';
import DashboardPage from './DashboardPage';
import type { ClusterStatistics, GroupStatistics, Spike } from './shape';

// MUI and recharts in jsdom are slow on a busy machine: generous waits, no timing asserted.
vi.setConfig({ testTimeout: 60_000 });
configure({ asyncUtilTimeout: 15_000 });

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const OPTIONS = Array.from({ length: 9 }, (_, i) => ({ id: uuid(i + 1), name: `group ${i + 1}` }));

const groupStats = (over: Partial<GroupStatistics> = {}): GroupStatistics => ({
  id: uuid(1),
  name: 'group 1',
  scheduled: 2,
  running: 1,
  success: 6,
  failed: 3,
  stopped: 1,
  limit: { cpu: 4000, memory: 8192, disk: 10240 },
  cpu: [],
  memory: [],
  disk: [],
  ...over,
});
const SPIKE: Spike = {
  spike_cpu: 3800,
  spike_memory: 4096,
  spike_disk: 1024,
  total_cpu: 3600,
  total_memory: 2048,
  total_disk: 1024,
  max_cpu: 4000,
  max_memory: 8192,
  max_disk: 10240,
};
const CLUSTERS: ClusterStatistics[] = [
  {
    id: 'cm-1',
    name: 'first',
    public: true,
    capacity: { cpu: 4000, memory: 8192, disk: 10240 },
    cpu: [
      { x: '2026-11-01T00:00:00.000Z', y: 1000 },
      { x: '2026-11-02T00:00:00.000Z', y: 3000 },
    ],
    memory: [{ x: '2026-11-01T00:00:00.000Z', y: 2048 }],
    disk: [{ x: '2026-11-01T00:00:00.000Z', y: 1024 }],
  },
];

const DONE = 'aaaa1111-0000-4000-8000-000000000101';
const RUNNING = 'aaab2222-0000-4000-8000-000000000102';
const never = () => new Promise<ApiAnswer>(() => {});

function open(role: Role, routes: ApiRoutes = {}) {
  const calls = stubApi({
    'GET /me': () => ({ result: aMe({ role }) }),
    'GET /statistic/options': () => ({ result: OPTIONS }),
    'POST /statistic/runs': () => ({ result: [groupStats(), groupStats({ id: uuid(2), name: 'group 2' })] }),
    'POST /statistic/clusters': () => ({ result: CLUSTERS }),
    'GET /statistic/spike': () => ({ result: SPIKE }),
    'GET /statistic/spike/free': () => ({
      result: [{ id: uuid(1), name: 'group 1', cpu: 1500, memory: 2048, disk: 5120 }],
    }),
    'GET /session': () => ({
      result: [
        sessionItem({ uuid: 's-1', name: 'nightly', running: true }),
        sessionItem({ uuid: 's-2', name: 'weekly' }),
      ],
    }),
    'GET /schedule/s-1/run': () => ({
      result: [
        run({ uuid: DONE, name: 'nightly', status: 'COMPLETED' }),
        run({ uuid: RUNNING, name: 'nightly', status: 'RUNNING' }),
      ],
    }),
    [`GET /statistic/runs/${DONE}`]: () => ({
      result: {
        run: DONE,
        session: 's-1',
        session_name: 'nightly',
        group: uuid(1),
        status: 'COMPLETED',
        start: '2026-11-01T00:00:00.000Z',
        stop: '2026-11-01T00:03:00.000Z',
        effective_time: 180_000,
        allocated_cpu: 2500,
        allocated_memory: 3072,
        allocated_disk: 1024,
        steps: 2,
      },
    }),
    ...routes,
  });
  renderWithProviders(<DashboardPage />, { route: '/dashboard' });
  return calls;
}

const panel = (testId: string) => screen.findByTestId(testId);
const settledPanel = async (testId: string, state: string) => {
  await waitFor(() => expect(screen.getByTestId(testId)).toHaveAttribute('data-state', state));
  return screen.getByTestId(testId);
};
const headings = () =>
  screen
    .getAllByRole('heading', { level: 2 })
    .map((h) => h.textContent)
    .sort();
const cardLabels = () =>
  within(screen.getByRole('list', { name: 'Organization dashboard' }))
    .getAllByRole('listitem')
    .map((card) => card.getAttribute('aria-label'));

beforeEach(() => stubWindowWidth(1400));
afterEach(() => vi.unstubAllGlobals());

describe('the organization dashboard per role', () => {
  it.each<[Role, string[], string[]]>([
    ['admin', ['Cluster Managers', 'Session Runs'], ['Scheduled Runs', 'Active Runs', 'Active Groups']],
    [
      'organization_admin',
      ['Cluster Managers', 'Session Runs'],
      ['Scheduled Runs', 'Active Runs', 'Active Groups'],
    ],
    ['group_admin', ['Run Comparison', 'Session Runs'], ['Active Sessions', 'Active Runs', 'Scheduled Runs']],
    ['user', ['Run Comparison', 'Session Runs'], ['Active Sessions', 'Active Runs', 'Scheduled Runs']],
  ])('%s sees the sections %j and the cards %j', async (role, sections, cards) => {
    const calls = open(role);
    expect(await screen.findByRole('heading', { level: 1, name: 'Organization dashboard' })).toBeVisible();
    await waitFor(() => expect(headings()).toEqual(sections));
    expect(cardLabels()).toEqual(cards);
    await settledPanel('chart-outcomes', 'ready');
    const admin = sections.includes('Cluster Managers');
    expect(calls.some((c) => c.key === 'GET /statistic/spike')).toBe(admin);
    expect(calls.some((c) => c.key === 'POST /statistic/clusters')).toBe(admin);
    expect(calls.some((c) => c.key === 'GET /statistic/spike/free')).toBe(!admin);
    if (!admin) {
      const free = await settledPanel('free-resources', 'ready');
      expect(within(free).getByRole('row', { name: /group 1/ }).textContent).toBe('group 11.525');
    }
  });

  it.each<[Role, Record<string, string>]>([
    ['organization_admin', { scheduled: '4', 'active-runs': '2', 'active-groups': '2' }],
    ['user', { 'active-sessions': '1', 'active-runs': '2', scheduled: '4' }],
  ])('%s: the cards count %j', async (role, values) => {
    open(role);
    for (const [key, value] of Object.entries(values))
      await waitFor(() =>
        expect(screen.getByTestId(`card-${key}`).querySelector('p')?.textContent).toBe(value),
      );
  });
});

describe('the Session Runs charts', () => {
  it('draws the counters, the success-versus-fail pie and the group runs bars', async () => {
    open('user');
    const pie = await settledPanel('chart-outcomes', 'ready');
    await waitFor(() => expect(pie.querySelectorAll('.recharts-pie-sector').length).toBe(2));
    const bars = await settledPanel('chart-group-runs', 'ready');
    expect(bars.querySelector('svg.recharts-surface')).not.toBeNull();
    expect(within(bars).getAllByText('group 2').length).toBeGreaterThan(0);
    expect(screen.getByTestId('card-success').querySelector('p')?.textContent).toBe('12');
    expect(screen.getByTestId('card-ended').querySelector('p')?.textContent).toBe('20');
  });

  it("draws the groups' allocation over time with their summed quota as the limit", async () => {
    const points = [
      { x: '2026-11-01T00:00:00.000Z', y: 1500 },
      { x: '2026-11-02T00:00:00.000Z', y: 2500 },
    ];
    open('user', {
      'POST /statistic/runs': () => ({
        result: [
          groupStats({ cpu: points }),
          groupStats({ id: uuid(2), name: 'group 2', cpu: points.slice(1) }),
        ],
      }),
    });
    const lines = await settledPanel('chart-groups-cpu', 'ready');
    expect(within(lines).getByRole('heading', { name: 'CPU allocated by group' })).toBeVisible();
    await waitFor(() => expect(lines.querySelectorAll('.recharts-line').length).toBe(2));
    expect(lines.querySelector('.recharts-reference-line')).not.toBeNull();
    expect(within(lines).getByText('Limit 8 cores')).toBeInTheDocument();
    // No memory or disk samples: those charts say there is nothing to show (no empty box).
    const memory = await settledPanel('chart-groups-memory', 'noData');
    expect(within(memory).getByText('Try running a session')).toBeVisible();
  });

  it.each<[string, string, () => ApiAnswer | Promise<ApiAnswer>, string[]]>([
    ['loading', 'loading', never, ['Loading…']],
    [
      'a failed call',
      'error',
      () => ({ status: 500, error: 'boom' }),
      ['Something went wrong, we have no data to display', 'Check your internet connection'],
    ],
    [
      'no ended run',
      'noData',
      () => ({ result: [groupStats({ success: 0, failed: 0, stopped: 0 })] }),
      ['Ops, seems you have not enough Runs to display charts', 'Try running a session'],
    ],
  ])('with %s the charts show their %s state, never an error page', async (_case, state, answer, texts) => {
    open('organization_admin', { 'POST /statistic/runs': answer });
    for (const id of ['chart-outcomes', 'chart-group-runs']) {
      const chart = await settledPanel(id, state);
      for (const text of texts) expect(within(chart).getByText(text)).toBeVisible();
      expect(chart.querySelector('svg.recharts-surface')).toBeNull();
    }
    expect(screen.getByRole('heading', { level: 1, name: 'Organization dashboard' })).toBeVisible();
  });
});

describe('the filter bar', () => {
  it('asks for the first 7 groups, one month back to the next hour', async () => {
    const before = Date.now();
    const calls = open('user');
    await waitFor(() => expect(calls.some((c) => c.key === 'POST /statistic/runs')).toBe(true));
    const body = calls.find((c) => c.key === 'POST /statistic/runs')!.body as Record<string, unknown>;
    expect(body.groups).toEqual(OPTIONS.slice(0, 7).map((o) => o.id));
    const end = Date.parse(body.end_date as string);
    expect(end).toBeGreaterThan(before);
    expect(end - before).toBeLessThanOrEqual(3_600_000);
    expect(new Date(end).getMinutes()).toBe(0);
    const start = new Date(end);
    start.setMonth(start.getMonth() - 1);
    expect(body.start_date).toBe(start.toISOString());
    expect(screen.getByRole('combobox', { name: 'Groups' }).textContent).toBe('7 groups');
  });

  it('refuses a start after the end until Reset Filters', async () => {
    const calls = open('user');
    await settledPanel('chart-outcomes', 'ready');
    const asked = () => calls.filter((c) => c.key === 'POST /statistic/runs').length;
    const before = asked();
    const end = screen.getByRole('group', { name: 'End' }).querySelector('input')!.value;
    const user = userEvent.setup();
    await user.click(
      within(screen.getByRole('group', { name: 'Start' })).getByRole('spinbutton', { name: 'Day' }),
    );
    await user.keyboard('{Control>}a{/Control}{Backspace}01012099 0000');
    expect(await screen.findByText('The start must not be after the end')).toBeVisible();
    const chart = await settledPanel('chart-outcomes', 'noFilter');
    expect(within(chart).getByText('Ops, seems you have no filter options selected')).toBeVisible();
    expect(within(chart).getByText('Select an option from filter bar')).toBeVisible();
    expect(asked()).toBe(before);
    await user.click(screen.getByRole('button', { name: 'Reset Filters' }));
    await settledPanel('chart-outcomes', 'ready');
    expect(screen.queryByText('The start must not be after the end')).toBeNull();
    expect(screen.getByRole('group', { name: 'End' }).querySelector('input')!.value).toBe(end);
  });

  it('says no filter is selected when every group is unticked, and asks for the ones picked', async () => {
    const calls = open('organization_admin');
    await settledPanel('chart-outcomes', 'ready');
    const user = userEvent.setup();
    fireEvent.mouseDown(screen.getByRole('combobox', { name: 'Groups' }));
    const listbox = await screen.findByRole('listbox');
    for (let i = 1; i <= 7; i++)
      await user.click(within(listbox).getByRole('option', { name: `group ${i}` }));
    expect(await screen.findByText('Select at least one group')).toBeVisible();
    for (const id of ['chart-outcomes', 'chart-lines-cpu']) await settledPanel(id, 'noFilter');
    await user.click(within(listbox).getByRole('option', { name: 'group 9' }));
    await settledPanel('chart-outcomes', 'ready');
    const last = calls.filter((c) => c.key === 'POST /statistic/runs').at(-1)!.body as { groups: string[] };
    expect(last.groups).toEqual([uuid(9)]);
  });
});

describe('the Cluster Managers section', () => {
  it.each([
    ['cpu', '90 %', true],
    ['memory', '25 %', false],
    ['disk', '10 %', false],
  ])('the %s pie shows %s allocated, red: %s', async (resource, percent, red) => {
    open('admin');
    const chart = await settledPanel(`chart-usage-${resource}`, 'ready');
    expect(within(chart).getByText(percent)).toBeInTheDocument();
    expect(chart.querySelector('[data-red]')?.getAttribute('data-red')).toBe(String(red));
    await waitFor(() =>
      expect(chart.querySelectorAll('.recharts-pie-sector path').length).toBeGreaterThan(0),
    );
    const fills = [...chart.querySelectorAll('.recharts-pie-sector path')].map((p) => p.getAttribute('fill'));
    expect(fills.includes('#ef5350')).toBe(red);
  });

  it('shows the peaks of 24 hours and line charts with the capacity as limit', async () => {
    open('admin');
    await waitFor(() =>
      expect(screen.getByTestId('card-peak-cpu').querySelector('p')?.textContent).toBe('3.8 cores'),
    );
    expect(screen.getByTestId('card-peak-memory').textContent).toContain('of 8 GB');
    const lines = await settledPanel('chart-lines-cpu', 'ready');
    await waitFor(() => expect(lines.querySelector('.recharts-reference-line')).not.toBeNull());
    expect(within(lines).getByText('Limit 4 cores')).toBeInTheDocument();
    expect(lines.querySelectorAll('.recharts-line').length).toBe(1);
  });

  it.each<[string, string, ApiRoutes]>([
    ['no cluster samples', 'noData', { 'POST /statistic/clusters': () => ({ result: [] }) }],
    ['a failed call', 'error', { 'POST /statistic/clusters': () => ({ status: 500, error: 'x' }) }],
    ['loading', 'loading', { 'POST /statistic/clusters': never }],
  ])('with %s the line charts show their %s state', async (_case, state, routes) => {
    open('admin', routes);
    for (const resource of ['cpu', 'memory', 'disk']) await settledPanel(`chart-lines-${resource}`, state);
    await settledPanel('chart-usage-cpu', 'ready');
  });

  it.each<[string, string, ApiAnswer, string]>([
    [
      'no capacity',
      'noData',
      {
        result: {
          ...SPIKE,
          max_cpu: 0,
          max_memory: 0,
          max_disk: 0,
          total_cpu: 0,
          total_memory: 0,
          total_disk: 0,
        },
      },
      'Ops, seems you have not enough Runs to display charts',
    ],
    [
      'a failed call',
      'error',
      { status: 500, error: 'x' },
      'Something went wrong, we have no data to display',
    ],
  ])('with %s the pies show their %s state and the peak cards a dash', async (_case, state, answer, text) => {
    open('admin', { 'GET /statistic/spike': () => answer });
    for (const resource of ['cpu', 'memory', 'disk']) {
      const pie = await settledPanel(`chart-usage-${resource}`, state);
      expect(within(pie).getByText(text)).toBeVisible();
    }
    if (state === 'error')
      expect(screen.getByTestId('card-peak-cpu').querySelector('p')?.textContent).toBe('–');
  });
});

describe('the run comparison', () => {
  it('completes session~run on Tab and Enter and compares the picked run', async () => {
    const calls = open('user');
    const chart = await settledPanel('chart-comparison', 'noRuns');
    expect(within(chart).getByText('Ops, seems you have no Runs selected')).toBeVisible();
    expect(within(chart).getByText('Select a Run from Session selection')).toBeVisible();
    const user = userEvent.setup();
    const field = screen.getByRole('textbox', { name: 'Session~Run 1' });
    await user.type(field, 'nig');
    await user.keyboard('{Tab}');
    expect(field).toHaveValue('nightly~');
    expect(field).toHaveFocus();
    await waitFor(() => expect(calls.some((c) => c.key === 'GET /schedule/s-1/run')).toBe(true));
    await user.type(field, 'aaaa{Enter}');
    expect(field).toHaveValue('nightly~aaaa1111');
    const compared = await settledPanel('chart-comparison', 'ready');
    expect(within(compared).getByRole('row', { name: /nightly~aaaa1111/ }).textContent).toBe(
      'nightly~aaaa111132.531',
    );
    expect(compared.querySelector('svg.recharts-surface')).not.toBeNull();
  });

  it.each([
    ['an unknown session', 'zzz', 'No run found'],
    ['a run that has not ended', 'nightly~aaab', 'No run found'],
  ])('says so for %s', async (_case, typed, message) => {
    open('user');
    await settledPanel('chart-comparison', 'noRuns');
    const field = screen.getByRole('textbox', { name: 'Session~Run 1' });
    await userEvent.setup().type(field, typed);
    await waitFor(() => expect(screen.getByText(message)).toBeVisible());
  });

  it("says 'Loading runs' while the session's runs load", async () => {
    open('user', { 'GET /schedule/s-1/run': never });
    await settledPanel('chart-comparison', 'noRuns');
    await userEvent.setup().type(screen.getByRole('textbox', { name: 'Session~Run 1' }), 'nightly~');
    expect(await screen.findByText('Loading runs')).toBeVisible();
  });

  it('adds and removes rows', async () => {
    open('group_admin');
    await panel('chart-comparison');
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Add a run' }));
    expect(screen.getAllByTestId('comparison-row')).toHaveLength(2);
    await user.click(screen.getAllByRole('button', { name: 'Remove this run' })[0]!);
    expect(screen.getAllByTestId('comparison-row')).toHaveLength(1);
  });
});
