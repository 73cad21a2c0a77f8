import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { keys, type NotificationList } from '../../api/queries';
import { stubApi } from '../../test-support/api-stub';
import { aNotification } from '../../test-support/fixtures';
import { newQueryClient, renderWithProviders } from '../../test-support/render';
import { NotificationBell } from './NotificationBell';

// MUI in jsdom is slow on a busy machine: role queries walk the whole tree.
vi.setConfig({ testTimeout: 30_000 });

function renderBell(list: NotificationList) {
  const client = newQueryClient();
  client.setQueryData(keys.notifications, list);
  return renderWithProviders(<NotificationBell />, { client });
}
const badge = () => screen.getByTestId('notification-badge').querySelector('.MuiBadge-badge')!;

describe('notification bell', () => {
  let calls: ReturnType<typeof stubApi>;
  beforeEach(() => {
    calls = stubApi();
  });
  afterEach(() => vi.unstubAllGlobals());

  it.each([
    [1, '1'],
    [9, '9'],
    [10, '10'],
    [11, '9+'],
    [25, '9+'],
  ])('shows %i unseen as %s', (unseen, shown) => {
    renderBell({ items: [aNotification(1)], unseen });
    expect(badge()).toHaveTextContent(shown);
    expect(badge()).not.toHaveClass('MuiBadge-invisible');
  });

  it('shows no badge when everything was seen', () => {
    renderBell({ items: [aNotification(1, { seen: true })], unseen: 0 });
    expect(badge()).toHaveClass('MuiBadge-invisible');
  });

  it('lists the cached notifications, newest first, and opening marks them seen', async () => {
    const now = Date.now();
    const { client } = renderBell({
      items: [
        aNotification(12, {
          title: 'Run completed',
          text: 'Nightly import succeeded',
          timestamp: new Date(now - 5 * 60_000).toISOString(),
          link: '/dashboard/session/s-1/r-1',
          message_data: { action: 'run', uuid: 's-1', run_uuid: 'r-1' },
        }),
        aNotification(11, {
          title: 'Sandbox shared',
          text: 'By Grace',
          timestamp: new Date(now - 3 * 3600_000).toISOString(),
        }),
        aNotification(10, {
          title: 'Old news',
          text: '',
          timestamp: new Date(now - 3 * 86400_000).toISOString(),
        }),
        ...Array.from({ length: 4 }, (_, i) => aNotification(9 - i, { seen: true })),
      ],
      unseen: 12,
    });
    expect(badge()).toHaveTextContent('9+');

    await userEvent.click(screen.getByRole('button', { name: 'Notifications' }));
    const popover = await screen.findByRole('dialog', { name: 'Notifications' });
    const titles = within(popover)
      .getAllByRole('listitem')
      .map((item) => item.querySelector('.MuiTypography-subtitle2')?.textContent);
    expect(titles).toEqual([
      'Run completed',
      'Sandbox shared',
      'Old news',
      'Run 9 finished',
      'Run 8 finished',
      'Run 7 finished',
      'Run 6 finished',
    ]);
    expect(within(popover).getByText('5 minutes ago')).toBeInTheDocument();
    expect(within(popover).getByText('3 hours ago')).toBeInTheDocument();
    expect(within(popover).getByText('Long long time ago')).toBeInTheDocument();
    expect(within(popover).getByRole('link', { name: /Run completed/ })).toHaveAttribute(
      'href',
      '/dashboard/session/s-1/r-1',
    );
    // Without a link the entry is plain text.
    expect(within(popover).queryByRole('link', { name: /Sandbox shared/ })).toBeNull();
    expect(within(popover).getByRole('link', { name: 'View all Events' })).toHaveAttribute('href', '/logs');
    // The three that were unseen stay marked 'New' while the popover is open.
    expect(within(popover).getAllByText('New')).toHaveLength(3);

    const cached = client.getQueryData<NotificationList>(keys.notifications)!;
    expect(cached.unseen).toBe(0);
    expect(cached.items.every((n) => n.seen)).toBe(true);
    expect(badge()).toHaveClass('MuiBadge-invisible');
    expect(calls).toEqual([]); // the list came from the cache: nothing fetched
  });

  it('says so when there is nothing to show', async () => {
    renderBell({ items: [], unseen: 0 });
    await userEvent.click(screen.getByRole('button', { name: 'Notifications' }));
    const popover = await screen.findByRole('dialog', { name: 'Notifications' });
    expect(within(popover).getByText('No new notifications')).toBeInTheDocument();
    expect(within(popover).getByRole('link', { name: 'View all Events' })).toBeInTheDocument();
  });

  it('fetches the unseen notifications when nothing is cached yet', async () => {
    calls = stubApi((call) =>
      call.path === '/notifications/new'
        ? {
            result: [
              { ...aNotification(3), seen: undefined },
              { ...aNotification(2), seen: undefined },
            ],
          }
        : undefined,
    );
    renderWithProviders(<NotificationBell />);
    expect(await screen.findByText('2', { selector: '.MuiBadge-badge' })).toBeInTheDocument();
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual(['GET /notifications/new']);
  });
});
