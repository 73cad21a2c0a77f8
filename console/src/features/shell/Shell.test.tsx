import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ReactNode } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Route, Routes } from 'react-router';
import { keys } from '../../api/queries';
import type { Me, Role } from '../../api/answers';
import { stubApi, type ApiCall } from '../../test-support/api-stub';
import { aMe } from '../../test-support/fixtures';
import { stubWindowWidth } from '../../test-support/media';
import { clearToasts, newQueryClient, renderWithProviders } from '../../test-support/render';
import { installFakeWebSocket } from './realtime/fake-websocket';
import { useMobileNav } from './mobile-nav';
import { Shell } from './Shell';

// MUI in jsdom is slow on a busy machine: role queries walk the whole tree.
vi.setConfig({ testTimeout: 30_000 });

/** A super admin: every settings entry. */
const ME = aMe({ role: 'admin' });

function renderShell({
  me = ME,
  route = '/sandbox/list',
  child = <p>Child route</p>,
}: { me?: Me; route?: string; child?: ReactNode } = {}) {
  const client = newQueryClient();
  client.setQueryData(keys.me, me);
  client.setQueryData(keys.notifications, { items: [], unseen: 0 });
  return renderWithProviders(
    <Routes>
      <Route path="/login" element={<p>Login page</p>} />
      <Route path="/" element={<Shell />}>
        <Route path="*" element={child} />
      </Route>
    </Routes>,
    { client, route },
  );
}

describe('shell at 1280 px', () => {
  let calls: ApiCall[];
  beforeEach(() => {
    stubWindowWidth(1280);
    installFakeWebSocket();
    calls = stubApi((call) => {
      if (call.path === '/logout' || call.path === '/feedback' || call.path === '/preferences/organization')
        return { result: true };
      return undefined;
    });
  });
  afterEach(() => {
    clearToasts();
    vi.unstubAllGlobals();
  });

  it('renders the bar above the child route, marking the active section', () => {
    renderShell({ route: '/workflow/view/42' });
    expect(screen.getByText('Child route')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Open navigation' })).toBeNull();
    const nav = screen.getByRole('navigation', { name: 'Sections' });
    expect(within(nav).getByRole('link', { name: 'Sandbox' })).toHaveAttribute('href', '/sandbox/list');
    expect(within(nav).getByRole('link', { name: 'Session' })).toHaveAttribute('href', '/session/list');
    expect(within(nav).getByRole('link', { name: 'Workflow' })).toHaveAttribute('aria-current', 'page');
    expect(within(nav).getByRole('link', { name: 'Sandbox' })).not.toHaveAttribute('aria-current');
    expect(screen.getByRole('button', { name: 'Notifications' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Realtime: connecting' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: /Analytical Engines/ })).toBeInTheDocument();
  });

  it.each<[Role | null, string[] | null]>([
    ['admin', ['Super settings', 'Organization settings', 'Users settings', 'Mail outbox']],
    ['organization_admin', ['Organization settings', 'Users settings']],
    ['group_admin', ['Users settings']],
    ['user', null],
    [null, null],
  ])('the gear of role %j', async (role, entries) => {
    renderShell({ me: aMe({ role }) });
    const gear = screen.queryByRole('button', { name: 'Settings' });
    if (!entries) return expect(gear).toBeNull();
    await userEvent.click(gear!);
    const menu = await screen.findByRole('menu');
    expect(
      within(menu)
        .getAllByRole('menuitem')
        .map((item) => item.textContent),
    ).toEqual(entries);
  });

  it('the avatar menu shows the person, links the profile, and logs out to /login', async () => {
    renderShell();
    await userEvent.click(screen.getByRole('button', { name: 'Account' }));
    const menu = await screen.findByRole('menu');
    expect(within(menu).getByText('Ada Lovelace')).toBeInTheDocument();
    expect(within(menu).getByText('Super admin')).toBeInTheDocument();
    expect(within(menu).getByText('AL')).toBeInTheDocument(); // initials: no avatar
    expect(within(menu).getByRole('menuitem', { name: 'View profile' })).toHaveAttribute('href', '/profile');
    await userEvent.click(within(menu).getByRole('menuitem', { name: 'Logout' }));
    expect(await screen.findByText('Login page')).toBeInTheDocument();
    expect(calls.map((c) => `${c.method} ${c.path}`)).toContain('GET /logout');
  });

  it('switches organization by name', async () => {
    renderShell();
    await userEvent.click(screen.getByRole('button', { name: /Analytical Engines/ }));
    const menu = await screen.findByRole('menu');
    expect(
      within(menu)
        .getAllByRole('menuitem')
        .map((i) => i.textContent),
    ).toEqual(['Analytical Engines', 'Difference Labs']);
    await userEvent.click(within(menu).getByRole('menuitem', { name: 'Difference Labs' }));
    await waitFor(() => expect(calls.some((c) => c.path === '/preferences/organization')).toBe(true));
    const call = calls.find((c) => c.path === '/preferences/organization')!;
    expect(call.method).toBe('POST');
    expect(call.body).toEqual({ name: 'Difference Labs' });
  });

  it('sends feedback with a subject and text, then thanks', async () => {
    renderShell();
    await userEvent.click(screen.getByRole('button', { name: 'Send feedback' }));
    const dialog = await screen.findByRole('dialog', { name: 'Send feedback' });
    const send = within(dialog).getByRole('button', { name: 'Send' });
    expect(send).toBeDisabled();
    await userEvent.click(within(dialog).getByRole('combobox', { name: 'Subject' }));
    await userEvent.click(await screen.findByRole('option', { name: 'Feature request' }));
    await userEvent.click(within(dialog).getByRole('textbox', { name: 'Message' }));
    await userEvent.paste('Dark mode');
    await userEvent.click(send);
    expect(await screen.findByText('Thank you for your feedback.')).toBeInTheDocument();
    const call = calls.find((c) => c.path === '/feedback')!;
    expect(call.method).toBe('POST');
    expect(call.body).toEqual({ subject: 'Feature request', content: 'Dark mode' });
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Send feedback' })).toBeNull());
  });
});

describe('shell at 574 px (mobile layout)', () => {
  beforeEach(() => {
    stubWindowWidth(574);
    installFakeWebSocket();
    stubApi();
  });
  afterEach(() => vi.unstubAllGlobals());

  it('keeps logo, bell and dot in the bar and moves the rest into the drawer', async () => {
    renderShell({ route: '/session/list' });
    expect(screen.getByRole('button', { name: 'Notifications' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Realtime: connecting' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Sandflow home' })).toBeInTheDocument();
    for (const gone of ['Settings', 'Account', 'Send feedback'])
      expect(screen.queryByRole('button', { name: gone })).toBeNull();
    expect(screen.queryByRole('link', { name: 'Sandbox' })).toBeNull();

    await userEvent.click(screen.getByRole('button', { name: 'Open navigation' }));
    const drawer = await screen.findByRole('navigation', { name: 'Navigation' });
    const links = within(drawer)
      .getAllByRole('link')
      .map((link) => [link.textContent, link.getAttribute('href')]);
    expect(links).toEqual([
      ['Sandbox', '/sandbox/list'],
      ['Workflow', '/workflow/list'],
      ['Session', '/session/list'],
      ['Super settings', '/settings/admin'],
      ['Organization settings', '/settings/organization'],
      ['Users settings', '/settings/users'],
      ['Mail outbox', '/outbox'],
      ['View profile', '/profile'],
    ]);
    expect(within(drawer).getByRole('link', { name: 'Session' })).toHaveAttribute('aria-current', 'page');
    expect(within(drawer).getByRole('button', { name: 'Logout' })).toBeInTheDocument();
    expect(within(drawer).getByRole('button', { name: 'Send feedback' })).toBeInTheDocument();
    expect(within(drawer).getByRole('button', { name: 'Difference Labs' })).toBeInTheDocument();
    expect(screen.getByText('Ada Lovelace')).toBeInTheDocument();

    await userEvent.click(within(drawer).getByRole('link', { name: 'Workflow' }));
    await waitFor(() => expect(screen.queryByRole('navigation', { name: 'Navigation' })).toBeNull());
  });

  it('tells the screen while the drawer is open (the dashboard hides its filter bar then)', async () => {
    function Screen() {
      return <p>{useMobileNav().open ? 'drawer open' : 'drawer closed'}</p>;
    }
    renderShell({ route: '/dashboard', child: <Screen /> });
    expect(screen.getByText('drawer closed')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Open navigation' }));
    await screen.findByRole('navigation', { name: 'Navigation' });
    expect(screen.getByText('drawer open')).toBeInTheDocument();
  });

  it('a plain user has no settings in the drawer', async () => {
    renderShell({ me: aMe({ role: 'user' }) });
    await userEvent.click(screen.getByRole('button', { name: 'Open navigation' }));
    const drawer = await screen.findByRole('navigation', { name: 'Navigation' });
    expect(within(drawer).queryByText(/settings/i)).toBeNull();
  });
});

describe('shell between 575 and 899 px', () => {
  beforeEach(() => {
    stubWindowWidth(760);
    installFakeWebSocket();
    stubApi();
  });
  afterEach(() => vi.unstubAllGlobals());

  it('keeps the desktop bar, with feedback moved into the avatar menu', async () => {
    renderShell();
    expect(screen.queryByRole('button', { name: 'Open navigation' })).toBeNull();
    expect(screen.getByRole('link', { name: 'Sandbox' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Send feedback' })).toBeNull();
    await userEvent.click(screen.getByRole('button', { name: 'Account' }));
    await userEvent.click(await screen.findByRole('menuitem', { name: 'Send feedback' }));
    expect(await screen.findByRole('dialog', { name: 'Send feedback' })).toBeInTheDocument();
  });
});
