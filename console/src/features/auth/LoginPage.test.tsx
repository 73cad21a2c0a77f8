import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RedirectIfAuthenticated, RequireAuth } from '../../app/guards';
import { stubApi } from '../../test-support/api-stub';
import { clearToasts, renderPage } from '../../test-support/render';
import LoginPage from './LoginPage';
import { REMEMBERED_USERNAME_KEY, safeRedirect } from './navigation';

const session = { access_token: 'a', refresh_token: 'r' };
const me = { id: 'u1', email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace' };

beforeEach(() => localStorage.clear());
afterEach(() => {
  vi.unstubAllGlobals();
  clearToasts();
});

// Pasted rather than typed key by key: MUI re-renders per keystroke, slow on a busy machine.
async function signIn(password = 'Secret-pass-1', username = 'ada@example.com') {
  const user = userEvent.setup();
  const email = await screen.findByLabelText('Email');
  await user.clear(email);
  await user.click(email);
  await user.paste(username);
  await user.click(screen.getByLabelText('Password'));
  await user.paste(password);
  await user.click(screen.getByRole('button', { name: 'Login' }));
  return user;
}

describe('LoginPage', { timeout: 20_000 }, () => {
  it("shows 'Invalid credential' inline on a 401 answer and stays on /login", async () => {
    stubApi({ 'POST /login': () => ({ status: 401, error: 'Invalid credential' }) });
    renderPage(<LoginPage />, { url: '/login', path: '/login' });
    await signIn('wrong');
    expect(await screen.findByRole('alert')).toHaveTextContent('Invalid credential');
    expect(screen.getByTestId('location')).toHaveTextContent('/login');
    expect(screen.queryByTestId('toast')).toBeNull();
  });

  it('sends the credentials, refetches me so the guards let us in, and goes to /dashboard on 200', async () => {
    let signedIn = false;
    const calls = stubApi({
      'POST /login': () => ((signedIn = true), { status: 200, result: { ...session, url: '/dashboard' } }),
      'GET /me': () => (signedIn ? { status: 200, result: me } : { status: 401, error: 'Unauthorized' }),
      'GET /refresh': () => ({ status: 401, error: 'Missing refresh token' }),
    });
    // As in the route table: /login behind RedirectIfAuthenticated, the rest behind RequireAuth.
    renderPage(
      <RedirectIfAuthenticated>
        <LoginPage />
      </RedirectIfAuthenticated>,
      { url: '/login', path: '/login', elsewhere: <RequireAuth>inside</RequireAuth> },
    );
    await signIn();
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent(/^\/dashboard$/));
    expect(await screen.findByText('inside')).toBeInTheDocument();
    expect(calls.find((c) => c.key === 'POST /login')!.body).toEqual({
      username: 'ada@example.com',
      password: 'Secret-pass-1',
    });
    expect(calls.filter((c) => c.key === 'GET /me')).toHaveLength(2);
  });

  it('goes back to ?backurl, sending it as X-Back-Url, and sends ?invite= as invitation_link', async () => {
    let signedIn = false;
    const calls = stubApi({
      'POST /login': ({ request }) => (
        (signedIn = true),
        { status: 200, result: { ...session, url: request.headers.get('X-Back-Url') } }
      ),
      'GET /me': () => (signedIn ? { status: 200, result: me } : { status: 401, error: 'Unauthorized' }),
    });
    // The /login guard sends a signed-in person to /dashboard; the back URL must still win.
    renderPage(
      <RedirectIfAuthenticated>
        <LoginPage />
      </RedirectIfAuthenticated>,
      {
        url: '/login?backurl=%2Fsandbox%2Flist%3Fpage%3D2&invite=tok-1',
        path: '/login',
        elsewhere: <RequireAuth>inside</RequireAuth>,
        // The next page's chunk arrives after `me` would have: the guard must not win the race.
        elsewhereLoadMs: 150,
      },
    );
    await signIn();
    await waitFor(() =>
      expect(screen.getByTestId('location')).toHaveTextContent(/^\/sandbox\/list\?page=2$/),
    );
    expect(await screen.findByText('inside')).toBeInTheDocument();
    const login = calls.find((c) => c.key === 'POST /login')!;
    expect(login.request.headers.get('X-Back-Url')).toBe('/sandbox/list?page=2');
    expect(login.body).toMatchObject({ invitation_link: 'tok-1' });
  });

  it('a back URL to /login itself goes to /dashboard (the guard there would wait for ever)', async () => {
    let signedIn = false;
    stubApi({
      'POST /login': () => ((signedIn = true), { status: 200, result: { ...session, url: '/login?x=1' } }),
      'GET /me': () => (signedIn ? { status: 200, result: me } : { status: 401, error: 'Unauthorized' }),
    });
    renderPage(
      <RedirectIfAuthenticated>
        <LoginPage />
      </RedirectIfAuthenticated>,
      {
        url: '/login?backurl=%2Flogin%3Fx%3D1',
        path: '/login',
        elsewhere: <RequireAuth>inside</RequireAuth>,
      },
    );
    await signIn();
    expect(await screen.findByText('inside')).toBeInTheDocument();
    expect(screen.getByTestId('location')).toHaveTextContent(/^\/dashboard$/);
  });

  it('ignores a back URL that leaves the site', async () => {
    const calls = stubApi({
      'POST /login': () => ({ status: 200, result: { ...session, url: '//evil.example/x' } }),
      'GET /me': () => ({ status: 200, result: me }),
    });
    renderPage(<LoginPage />, { url: '/login?backurl=https%3A%2F%2Fevil.example', path: '/login' });
    await signIn();
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent(/^\/dashboard$/));
    expect(calls[0]!.request.headers.get('X-Back-Url')).toBeNull();
  });

  it.each([
    ['/sandbox/list', '/sandbox/list'],
    ['/logs?x=1', '/logs?x=1'],
    ['//evil.example', null],
    ['/\\evil.example', null],
    ['https://evil.example/', null],
    ['javascript:alert(1)', null],
    ['sandbox/list', null],
    ['', null],
  ])('safeRedirect(%j) is %j', (value, expected) => {
    expect(safeRedirect(value)).toBe(expected);
  });

  it('toasts the reason of a failure other than a wrong password', async () => {
    stubApi({ 'POST /login': () => ({ status: 403, error: 'E-mail not verified' }) });
    renderPage(<LoginPage />, { url: '/login', path: '/login' });
    await signIn();
    expect(await screen.findByText('Invalid credential')).toBeInTheDocument();
    expect(await screen.findByTestId('toast')).toHaveTextContent('E-mail not verified');
  });

  it.each([['{Enter}'], ['[NumpadEnter]']])('submits with %s in the password field', async (key) => {
    const calls = stubApi({ 'POST /login': () => ({ status: 401, error: 'Invalid credential' }) });
    renderPage(<LoginPage />, { url: '/login', path: '/login' });
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Email'), 'ada@example.com');
    await user.type(screen.getByLabelText('Password'), `pw${key}`);
    await screen.findByRole('alert');
    expect(calls.filter((c) => c.key === 'POST /login')).toHaveLength(1);
  });

  it('Remember me keeps the username and pre-fills it next time; unticked forgets it', async () => {
    stubApi({
      'POST /login': () => ({ status: 200, result: session }),
      'GET /me': () => ({ status: 200, result: me }),
    });
    const first = renderPage(<LoginPage />, { url: '/login', path: '/login' });
    const user = userEvent.setup();
    await user.click(screen.getByLabelText('Remember me'));
    await signIn();
    await waitFor(() => expect(localStorage.getItem(REMEMBERED_USERNAME_KEY)).toBe('ada@example.com'));
    first.unmount();

    renderPage(<LoginPage />, { url: '/login', path: '/login' });
    expect(screen.getByLabelText('Email')).toHaveValue('ada@example.com');
    expect(screen.getByLabelText('Remember me')).toBeChecked();
    await user.click(screen.getByLabelText('Remember me'));
    await user.type(screen.getByLabelText('Password'), 'pw');
    await user.click(screen.getByRole('button', { name: 'Login' }));
    await waitFor(() => expect(localStorage.getItem(REMEMBERED_USERNAME_KEY)).toBeNull());
  });

  it('shows and hides the password', async () => {
    renderPage(<LoginPage />, { url: '/login', path: '/login' });
    const user = userEvent.setup();
    expect(screen.getByLabelText('Password')).toHaveAttribute('type', 'password');
    await user.click(screen.getByRole('button', { name: 'Show password' }));
    expect(screen.getByLabelText('Password')).toHaveAttribute('type', 'text');
    await user.click(screen.getByRole('button', { name: 'Hide password' }));
    expect(screen.getByLabelText('Password')).toHaveAttribute('type', 'password');
  });

  it('Forgot password asks for the e-mail and mails a link on Confirm', async () => {
    const calls = stubApi({ 'POST /password': () => ({ status: 200, result: true }) });
    renderPage(<LoginPage />, { url: '/login', path: '/login' });
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Email'), 'ada@');
    await user.click(screen.getByRole('button', { name: 'Forgot password?' }));
    const dialog = await screen.findByRole('dialog');
    const field = within(dialog).getByLabelText('Email');
    expect(field).toHaveValue('ada@');
    expect(within(dialog).getByRole('button', { name: 'Confirm' })).toBeDisabled();
    await user.type(field, 'example.com');
    await user.click(within(dialog).getByRole('button', { name: 'Confirm' }));
    expect(await screen.findByTestId('toast')).toHaveTextContent('ada@example.com');
    expect(calls.find((c) => c.key === 'POST /password')!.body).toEqual({ username: 'ada@example.com' });
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });

  it('links to /signup keeping ?invite=, and to the two foundations', () => {
    renderPage(<LoginPage />, { url: '/login?invite=abc', path: '/login' });
    expect(screen.getByRole('link', { name: 'Sign up' })).toHaveAttribute('href', '/signup?invite=abc');
    expect(screen.getByRole('link', { name: 'Kubernetes' })).toHaveAttribute('href', 'https://kubernetes.io');
    expect(screen.getByRole('link', { name: 'Argo' })).toHaveAttribute('href', 'https://argoproj.github.io');
    expect(screen.getByRole('heading', { name: 'Access the platform' })).toBeInTheDocument();
  });
});
