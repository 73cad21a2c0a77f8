import { configure, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Role } from '../../api/answers';
import { stubApi, type ApiCall } from '../../test-support/api-stub';
import { aMe } from '../../test-support/fixtures';
import { stubWindowWidth } from '../../test-support/media';
import { renderWithProviders } from '../../test-support/render';
import BillingPage from './BillingPage';
import type { BillingPage as BillingAnswer, BillingRecord } from './queries';

vi.setConfig({ testTimeout: 60_000 });
configure({ asyncUtilTimeout: 15_000 });

const ORG = '0a000000-0000-4000-8000-000000000001';
const record = (n: number, over: Partial<BillingRecord> = {}): BillingRecord => ({
  _id: String(n),
  amount: 0.0576,
  amount_nano: '57600000',
  execution_time: 3_723e9,
  organization: ORG,
  paid: false,
  sandbox_id: `sb-${n}`,
  sandbox_name: `step-${n}`,
  session: 'session-a',
  session_name: 'Nightly ETL',
  run: `run-${n}`,
  status: 'Succeeded',
  timestamp: '2026-11-20T10:00:00.000Z',
  user_id: null,
  group: null,
  machine: { cpu: 2000, memory: 4096 },
  ...over,
});
// 45 records over two sessions: $12.35 (Nightly ETL, 40 records) and $0.01 exactly half a cent up.
const answer = (page: number, pageSize: number): BillingAnswer => {
  const all = Array.from({ length: 45 }, (_, i) =>
    i < 40 ? record(i) : record(i, { session: 'session-b', session_name: 'Ad hoc', amount_nano: '1000000' }),
  );
  return {
    records: all.slice(page * pageSize, page * pageSize + pageSize),
    page,
    page_size: pageSize,
    total: all.length,
    sessions: [
      {
        session: 'session-a',
        session_name: 'Nightly ETL',
        records: 40,
        execution_time: 40 * 3_723e9,
        amount: 12.35,
        amount_nano: '12345678901',
      },
      {
        session: 'session-b',
        session_name: 'Ad hoc',
        records: 5,
        execution_time: 5 * 3_723e9,
        amount: 0.01,
        amount_nano: '5000000',
      },
    ],
    amount: 12.35,
    amount_nano: '12350678901',
  };
};
const EMPTY: BillingAnswer = {
  records: [],
  page: 0,
  page_size: 20,
  total: 0,
  sessions: [],
  amount: 0,
  amount_nano: '0',
};

function open(role: Role = 'organization_admin', billing?: (call: ApiCall) => BillingAnswer) {
  const calls = stubApi({
    'GET /me': () => ({ result: aMe({ role, current_organization: ORG }) }),
    'GET /billing': (call) => ({
      result: (billing ?? ((c) => answer(Number(c.query.get('page')), Number(c.query.get('page_size')))))(
        call,
      ),
    }),
  });
  renderWithProviders(<BillingPage />, { route: '/billing' });
  return calls;
}
const billingCalls = (calls: ApiCall[]) =>
  calls.filter((c) => c.key === 'GET /billing').map((c) => [c.query.get('page'), c.query.get('page_size')]);

beforeEach(() => stubWindowWidth(1400));
afterEach(() => vi.unstubAllGlobals());

describe('Billing page', () => {
  it('shows the overall total, the per-session totals and the first page of records in dollars with cents', async () => {
    const calls = open();
    const records = await screen.findByRole('table', { name: 'Billing records' });
    expect(screen.getByRole('heading', { level: 1, name: 'Billing' })).toBeInTheDocument();
    expect(screen.getByTestId('billing-total')).toHaveTextContent('$12.35');
    expect(screen.getByText(/every total is the exact sum, rounded once/)).toBeInTheDocument();
    expect(screen.getByText('45 records · 2 sessions')).toBeInTheDocument();
    expect(
      within(records)
        .getAllByRole('columnheader')
        .map((h) => h.textContent),
    ).toEqual(['Date', 'Session', 'Run', 'Sandbox', 'Status', 'Machine', 'Execution time', 'Amount']);
    // The route's default page: 20 rows plus the header.
    expect(within(records).getAllByRole('row')).toHaveLength(21);
    const first = within(records).getByRole('row', { name: /run-0 / });
    expect(first).toHaveTextContent('Nightly ETL');
    expect(first).toHaveTextContent('2 cores · 4 GB');
    expect(first).toHaveTextContent('1:02:03');
    expect(within(first).getByText('$0.06')).toHaveAttribute('title', 'Exactly $0.0576');

    const totals = screen.getByRole('table', { name: 'Totals per session' });
    const rows = within(totals).getAllByRole('row').slice(1);
    expect(rows.map((r) => [...r.querySelectorAll('td')].map((c) => c.textContent))).toEqual([
      ['Nightly ETL', '40', '41:22:00', '$12.35'],
      // Half a cent exactly: rounded up, like the API's totals.
      ['Ad hoc', '5', '5:10:15', '$0.01'],
    ]);
    expect(billingCalls(calls)).toEqual([['0', '20']]);
  });

  it('pages the records on the server', async () => {
    const calls = open();
    const user = userEvent.setup();
    const records = await screen.findByRole('table', { name: 'Billing records' });
    expect(screen.getByText('1–20 of 45')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Go to next page' }));
    await within(records).findByRole('row', { name: /run-20 / });
    expect(within(records).queryByRole('row', { name: /run-0 / })).toBeNull();
    expect(screen.getByText('21–40 of 45')).toBeInTheDocument();

    await user.click(screen.getByRole('combobox', { name: /Rows per page/ }));
    await user.click(await screen.findByRole('option', { name: '50' }));
    await within(records).findByRole('row', { name: /run-44 / });
    expect(within(records).getAllByRole('row')).toHaveLength(46);
    expect(billingCalls(calls)).toEqual([
      ['0', '20'],
      ['1', '20'],
      ['0', '50'],
    ]);
  });

  it('downloads every record as CSV through a plain link (the cookie goes with it)', async () => {
    open();
    await screen.findByRole('table', { name: 'Billing records' });
    const link = screen.getByRole('link', { name: 'Download CSV' });
    expect(link).toHaveAttribute('href', '/api/v0/billing/csv');
    expect(link).toHaveAttribute('download', 'billing.csv');
  });

  it("says 'No data to show' in both tables when there is nothing to bill, and offers no CSV", async () => {
    open('user', () => EMPTY);
    const records = await screen.findByRole('table', { name: 'Billing records' });
    expect(within(records).getByText('No data to show')).toBeInTheDocument();
    expect(
      within(screen.getByRole('table', { name: 'Totals per session' })).getByText('No data to show'),
    ).toBeInTheDocument();
    expect(screen.getByTestId('billing-total')).toHaveTextContent('$0.00');
    expect(screen.getByRole('button', { name: 'Download CSV' })).toBeDisabled();
    expect(screen.queryByRole('link', { name: 'Download CSV' })).toBeNull();
  });

  it('shows a spinner while loading, the generic failure with Retry, and the records after retrying', async () => {
    let fail = true;
    stubApi({
      'GET /me': () => ({ result: aMe({ current_organization: ORG }) }),
      'GET /billing': () => (fail ? { status: 500, error: 'database down' } : { result: answer(0, 20) }),
    });
    renderWithProviders(<BillingPage />, { route: '/billing' });
    expect(screen.getByRole('progressbar', { name: 'Loading billing records' })).toBeInTheDocument();
    expect(await screen.findByText('Request failed')).toBeInTheDocument();
    expect(screen.getByText('Something went wrong, please retry.')).toBeInTheDocument();
    fail = false;
    await userEvent.setup().click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByRole('table', { name: 'Billing records' })).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByText('Request failed')).toBeNull());
  });

  it('asks for an organization first instead of reading billing without one', async () => {
    const calls = stubApi({
      'GET /me': () => ({ result: aMe({ role: 'admin', current_organization: null }) }),
    });
    renderWithProviders(<BillingPage />, { route: '/billing' });
    expect(await screen.findByText(/^Choose an organization first/)).toBeInTheDocument();
    expect(calls.some((c) => c.key === 'GET /billing')).toBe(false);
    expect(screen.getByRole('button', { name: 'Download CSV' })).toBeDisabled();
  });

  it.each<[Role, string]>([
    ['admin', 'The step executions of the current organization'],
    ['organization_admin', 'The step executions of the current organization'],
    ['group_admin', 'Your step executions'],
    ['user', 'Your step executions'],
  ])('tells a %s whose records these are: %s…', async (role, text) => {
    open(role);
    expect(await screen.findByText(new RegExp(`^${text}`))).toBeInTheDocument();
  });
});
