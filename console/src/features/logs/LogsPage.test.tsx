import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AuditEvent } from '../../api/answers';
import { EVENTS_POLL_MS } from '../../api/queries';
import { stubApi, type ApiHandler } from '../../test-support/api-stub';
import { renderWithProviders } from '../../test-support/render';
import LogsPage from './LogsPage';

// Today is Monday 23/11/2026 (local time).
const NOW = new Date(2026, 10, 23, 12, 0, 0);
const at = (day: number, h: number, mi = 0, s = 0) => new Date(2026, 10, day, h, mi, s).toISOString();
const event = (id: number, timestamp: string): AuditEvent => ({
  id,
  timestamp,
  organization_name: 'Acme',
  kind: 'sandboxes',
  action: 'create',
  subject: `subject ${id}`,
  data: [{ name: `box-${id}` }],
  user_name: 'Ada Lovelace',
});

const PAGE_0 = [
  event(40, at(23, 11, 30, 5)),
  event(39, at(23, 9, 0, 0)),
  event(38, at(23, 0, 0, 1)),
  event(37, at(22, 23, 59, 59)),
  event(36, at(22, 8, 15, 0)),
];
// Asked after a new event arrived: it starts with the previous page's last event again.
const PAGE_1 = [event(36, at(22, 8, 15, 0)), event(35, at(21, 17, 0, 0)), event(34, at(21, 7, 0, 0))];

function serve(
  pages: AuditEvent[][],
  overrides: (page: number, call: number) => ReturnType<ApiHandler> = () => undefined,
) {
  let call = 0;
  return stubApi(({ method, path, query }) => {
    if (method !== 'GET' || path !== '/illumina/events') return undefined;
    const page = Number(query.get('page'));
    return overrides(page, call++) ?? { result: pages[page] ?? [] };
  });
}

const day = (heading: string) => screen.getByRole('button', { name: new RegExp(heading) });
const section = (heading: string) => day(heading).closest('section') as HTMLElement;

// jsdom renders MUI slowly when every test file runs at once.
describe('/logs', { timeout: 15_000 }, () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(NOW);
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('groups the first page by day, today expanded and the other days collapsed', async () => {
    const calls = serve([PAGE_0]);
    renderWithProviders(<LogsPage />);

    expect(await screen.findByRole('button', { name: /Monday 23\/11\/2026/ })).toHaveAttribute(
      'aria-expanded',
      'true',
    );
    expect(day('Sunday 22/11/2026')).toHaveAttribute('aria-expanded', 'false');
    expect(within(day('Monday 23/11/2026')).getByText('3 events')).toBeInTheDocument();
    expect(within(day('Sunday 22/11/2026')).getByText('2 events')).toBeInTheDocument();

    const today = within(section('Monday 23/11/2026'));
    const rows = today.getAllByTestId('event');
    expect(rows.map((r) => within(r).getAllByRole('cell')[0]!.textContent)).toEqual([
      '11:30:05',
      '09:00:00',
      '00:00:01',
    ]);
    expect(rows[0]).toHaveTextContent('Acme');
    expect(rows[0]).toHaveTextContent('Ada Lovelace');
    expect(rows[0]).toHaveTextContent('Sandboxes');
    expect(rows[0]).toHaveTextContent('subject 40 (name: box-40)');

    await userEvent.click(day('Sunday 22/11/2026'));
    expect(within(section('Sunday 22/11/2026')).getAllByTestId('event')).toHaveLength(2);

    expect(screen.getByTestId('currently-empty')).toHaveTextContent('Nothing new since 12:00:00');
    expect(screen.queryByTestId('end-log')).not.toBeInTheDocument();
    expect(calls.map((c) => c.query.get('page'))).toEqual(['0']);
  });

  it('Load older events appends the next page (disabled while it loads), then End Log after an empty page', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const calls = serve([PAGE_0, PAGE_1, []], (page) =>
      page === 1 ? held.then(() => ({ result: PAGE_1 })) : undefined,
    );
    renderWithProviders(<LogsPage />);

    const older = await screen.findByRole('button', { name: 'Load older events' });
    await userEvent.click(older);
    await waitFor(() => expect(older).toBeDisabled());
    expect(screen.queryByText(/Saturday 21\/11\/2026/)).not.toBeInTheDocument();

    await act(async () => release());
    expect(await screen.findByRole('button', { name: /Saturday 21\/11\/2026/ })).toBeInTheDocument();
    // Event 36 came twice (page 0's tail, page 1's head): it is listed once.
    expect(within(day('Sunday 22/11/2026')).getByText('2 events')).toBeInTheDocument();
    expect(within(day('Saturday 21/11/2026')).getByText('2 events')).toBeInTheDocument();
    expect(screen.getAllByTestId('day')).toHaveLength(3);

    await waitFor(() => expect(older).toBeEnabled());
    await userEvent.click(older);
    expect(await screen.findByTestId('end-log')).toHaveTextContent('End Log');
    expect(screen.queryByRole('button', { name: 'Load older events' })).not.toBeInTheDocument();
    expect(calls.map((c) => c.query.get('page'))).toEqual(['0', '1', '2']);
  });

  it('shows End Log at once for an empty log', async () => {
    serve([[]]);
    renderWithProviders(<LogsPage />);
    expect(await screen.findByTestId('end-log')).toBeInTheDocument();
    expect(screen.getByText('No events yet.')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Load older events' })).not.toBeInTheDocument();
  });

  it('asks page 0 again every 15 s and shows what is newer than the log in Currently', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    vi.setSystemTime(NOW);
    const fresh = event(41, at(23, 12, 0, 10));
    const calls = serve([PAGE_0], (page, call) =>
      page === 0 && call > 0 ? { result: [fresh, ...PAGE_0] } : undefined,
    );
    renderWithProviders(<LogsPage />);
    await screen.findByRole('button', { name: /Monday 23\/11\/2026/ });
    expect(calls).toHaveLength(1); // the poll starts from the log's own first page

    await act(() => vi.advanceTimersByTimeAsync(EVENTS_POLL_MS));
    const current = await screen.findByTestId('current-events');
    expect(within(current).getAllByTestId('event')).toHaveLength(1);
    expect(current).toHaveTextContent('23/11/2026 12:00:10');
    expect(current).toHaveTextContent('subject 41');
    // Not repeated in today's table.
    expect(within(section('Monday 23/11/2026')).getAllByTestId('event')).toHaveLength(3);
    expect(calls.map((c) => c.query.get('page'))).toEqual(['0', '0']);
  });

  it('offers Retry when the first page fails', async () => {
    let fail = true;
    serve([PAGE_0], () => (fail ? { status: 500, error: 'database unavailable' } : undefined));
    renderWithProviders(<LogsPage />);
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'The events could not be loaded. database unavailable',
    );
    fail = false;
    await userEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByRole('button', { name: /Monday 23\/11\/2026/ })).toBeInTheDocument();
  });
});
