import { act, screen, waitFor } from '@testing-library/react';
import userEvent, { type UserEvent } from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { stubApi, type ApiHandler } from '../../test-support/api-stub';
import { clearToasts, renderPage } from '../../test-support/render';
import SignupPage from './SignupPage';

afterEach(() => {
  vi.unstubAllGlobals();
  clearToasts();
});

const open: ApiHandler = () => ({ status: 200, result: { allow_new_organization: true } });
const closed: ApiHandler = () => ({ status: 200, result: { allow_new_organization: false } });
const acme: ApiHandler = () => ({ status: 200, result: { organization: 'Acme', user: 'grace@acme.test' } });

// Pasted rather than typed key by key: MUI re-renders per keystroke, slow on a busy machine.
async function fill(user: UserEvent, label: string, value: string) {
  const field = screen.getByLabelText(label);
  await user.clear(field);
  if (value) {
    await user.click(field);
    await user.paste(value);
  }
}

async function fillForm(user: UserEvent, values: Partial<Record<string, string>>) {
  const all = {
    'First name': 'Ada',
    'Last name': 'Lovelace',
    Email: 'ada@example.com',
    Password: 'Strong-pass-1',
    'Confirm password': 'Strong-pass-1',
    ...values,
  };
  for (const [label, value] of Object.entries(all)) await fill(user, label, value!);
}

describe('SignupPage', { timeout: 20_000 }, () => {
  it('disables New Organization when the platform does not allow new organizations', async () => {
    stubApi({ 'GET /illumina/preferences': closed });
    renderPage(<SignupPage />, { url: '/signup', path: '/signup' });
    expect(await screen.findByRole('heading', { name: 'Register to the platform' })).toBeInTheDocument();
    expect(screen.getByRole('tab', { name: 'New Organization' })).toBeDisabled();
    expect(screen.getByRole('tab', { name: 'Invitation Link' })).toHaveAttribute('aria-selected', 'true');
    expect(screen.getByPlaceholderText('Insert invitation code...')).not.toHaveAttribute('readonly');
    expect(screen.getByRole('button', { name: 'Join' })).toBeInTheDocument();
  });

  it('offers New Organization when allowed, and the button follows the tab', async () => {
    stubApi({ 'GET /illumina/preferences': open });
    renderPage(<SignupPage />, { url: '/signup', path: '/signup' });
    const user = userEvent.setup();
    const tab = await screen.findByRole('tab', { name: 'New Organization' });
    expect(tab).toBeEnabled();
    expect(tab).toHaveAttribute('aria-selected', 'true');
    expect(screen.getByPlaceholderText('Insert name of a new Organization...')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Register' })).toBeInTheDocument();
    await user.click(screen.getByRole('tab', { name: 'Invitation Link' }));
    expect(screen.getByPlaceholderText('Insert invitation code...')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Join' })).toBeInTheDocument();
  });

  it("an invitation of the URL: heading 'Join Acme', the invited e-mail read-only, the code read-only", async () => {
    const calls = stubApi({ 'GET /illumina/preferences': open, 'GET /invite/tok-9': acme });
    renderPage(<SignupPage />, { url: '/signup?invite=tok-9', path: '/signup' });
    expect(await screen.findByRole('heading', { name: 'Join Acme' })).toBeInTheDocument();
    expect(screen.getByLabelText('Email')).toHaveValue('grace@acme.test');
    expect(screen.getByLabelText('Email')).toHaveAttribute('readonly');
    expect(screen.getByPlaceholderText('Insert invitation code...')).toHaveValue('tok-9');
    expect(screen.getByPlaceholderText('Insert invitation code...')).toHaveAttribute('readonly');
    expect(screen.getByRole('link', { name: 'Login' })).toHaveAttribute('href', '/login?invite=tok-9');
    expect(screen.getByRole('button', { name: 'Join' })).toBeInTheDocument();
    expect(calls.map((c) => c.key)).toContain('GET /invite/tok-9');
  });

  it('sends the invitation registration with use_invitation and the code', async () => {
    const calls = stubApi({
      'GET /illumina/preferences': open,
      'GET /invite/tok-9': acme,
      'POST /user': () => ({ status: 200, result: true }),
    });
    renderPage(<SignupPage />, { url: '/signup?invite=tok-9', path: '/signup' });
    await screen.findByRole('heading', { name: 'Join Acme' });
    const user = userEvent.setup();
    await fill(user, 'First name', 'Grace');
    await fill(user, 'Last name', 'Hopper');
    await fill(user, 'Password', 'Strong-pass-1');
    await fill(user, 'Confirm password', 'Strong-pass-1');
    await user.click(screen.getByRole('button', { name: 'Join' }));
    await screen.findByText('Registration success. Check your email to confirm');
    expect(calls.find((c) => c.key === 'POST /user')!.body).toEqual({
      first_name: 'Grace',
      last_name: 'Hopper',
      email: 'grace@acme.test',
      password: 'Strong-pass-1',
      use_invitation: true,
      invitation_link: 'tok-9',
    });
  });

  it('drops the invitation to found a new organization when allowed', async () => {
    const calls = stubApi({
      'GET /illumina/preferences': open,
      'GET /invite/tok-9': acme,
      'POST /user': () => ({ status: 200, result: true }),
    });
    renderPage(<SignupPage />, { url: '/signup?invite=tok-9', path: '/signup' });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Create a new organization instead' }));
    expect(await screen.findByRole('heading', { name: 'Register to the platform' })).toBeInTheDocument();
    expect(screen.getByTestId('location')).toHaveTextContent(/^\/signup$/);
    expect(screen.getByLabelText('Email')).not.toHaveAttribute('readonly');
    expect(screen.getByRole('tab', { name: 'New Organization' })).toHaveAttribute('aria-selected', 'true');
    await fillForm(user, { Email: 'grace@elsewhere.test' });
    await fill(user, 'Organization name', 'Hopper Labs');
    await user.click(screen.getByRole('button', { name: 'Register' }));
    await screen.findByText('Registration success. Check your email to confirm');
    expect(calls.find((c) => c.key === 'POST /user')!.body).toMatchObject({
      email: 'grace@elsewhere.test',
      use_invitation: false,
      organization: 'Hopper Labs',
    });
  });

  it('has no drop link when new organizations are not allowed', async () => {
    stubApi({ 'GET /illumina/preferences': closed, 'GET /invite/tok-9': acme });
    renderPage(<SignupPage />, { url: '/signup?invite=tok-9', path: '/signup' });
    await screen.findByRole('heading', { name: 'Join Acme' });
    expect(screen.queryByRole('button', { name: 'Create a new organization instead' })).toBeNull();
  });

  it('says so when the invitation of the URL is unknown', async () => {
    stubApi({
      'GET /illumina/preferences': closed,
      'GET /invite/nope': () => ({ status: 200, result: null }),
    });
    renderPage(<SignupPage />, { url: '/signup?invite=nope', path: '/signup' });
    expect(await screen.findByText('This invitation is unknown or has expired.')).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Register to the platform' })).toBeInTheDocument();
  });

  it.each([
    ['first name', 'All fields are required', { 'First name': '' }],
    ['last name', 'All fields are required', { 'Last name': '' }],
    ['e-mail', 'All fields are required', { Email: '' }],
    ['password', 'All fields are required', { Password: '', 'Confirm password': '' }],
    ['organization name', 'All fields are required', { organization: '' }],
    ['confirmation', "Passwords don't match", { 'Confirm password': 'Other-pass-2' }],
  ])('without a valid %s: toast Registration error / %s, nothing sent', async (_what, text, values) => {
    const calls = stubApi({ 'GET /illumina/preferences': open });
    renderPage(<SignupPage />, { url: '/signup', path: '/signup' });
    await screen.findByRole('tab', { name: 'New Organization' });
    const user = userEvent.setup();
    const { organization = 'Hopper Labs', ...fields } = values as Record<string, string>;
    await fillForm(user, fields);
    if (organization) await fill(user, 'Organization name', organization);
    await user.click(screen.getByRole('button', { name: 'Register' }));
    const toast = await screen.findByTestId('toast');
    expect(toast).toHaveTextContent('Registration error');
    expect(toast).toHaveTextContent(text);
    expect(calls.some((c) => c.key === 'POST /user')).toBe(false);
  });

  it("a refused registration shows 'Invalid credential' and the server's message", async () => {
    stubApi({
      'GET /illumina/preferences': open,
      'POST /user': () => ({ status: 409, error: 'email: already registered' }),
    });
    renderPage(<SignupPage />, { url: '/signup', path: '/signup' });
    await screen.findByRole('tab', { name: 'New Organization' });
    const user = userEvent.setup();
    await fillForm(user, {});
    await fill(user, 'Organization name', 'Hopper Labs');
    await user.click(screen.getByRole('button', { name: 'Register' }));
    expect(await screen.findByText('Invalid credential')).toBeInTheDocument();
    expect(await screen.findByTestId('toast')).toHaveTextContent('email: already registered');
    expect(screen.getByRole('button', { name: 'Register' })).toBeEnabled();
  });

  it('flags the e-mail invalid while typing, and valid again once it is an address', async () => {
    stubApi({ 'GET /illumina/preferences': open });
    renderPage(<SignupPage />, { url: '/signup?user=ada', path: '/signup' });
    const user = userEvent.setup();
    const email = await screen.findByLabelText('Email');
    expect(email).toHaveValue('ada');
    expect(email).toHaveAttribute('aria-invalid', 'true');
    expect(screen.getByText('Enter a valid e-mail address')).toBeInTheDocument();
    await user.type(email, '@example');
    expect(email).toHaveAttribute('aria-invalid', 'true');
    await user.type(email, '.com');
    expect(email).toHaveAttribute('aria-invalid', 'false');
    expect(screen.queryByText('Enter a valid e-mail address')).toBeNull();
    await user.clear(email);
    expect(email).toHaveAttribute('aria-invalid', 'false');
  });
});

describe('SignupPage waits', () => {
  it('shows a spinner until the platform preferences are known', async () => {
    let answer: (a: { status: number; result: unknown }) => void = () => {};
    stubApi({ 'GET /illumina/preferences': () => new Promise((resolve) => (answer = resolve)) });
    renderPage(<SignupPage />, { url: '/signup', path: '/signup' });
    expect(screen.getByLabelText('loading')).toBeInTheDocument();
    await waitFor(() => expect(answer).not.toBe(undefined));
    answer({ status: 200, result: { allow_new_organization: true } });
    expect(await screen.findByRole('button', { name: 'Register' })).toBeInTheDocument();
  });
});

describe('SignupPage with a bot check', { timeout: 20_000 }, () => {
  /** A provider API on its global, as its script would leave it: no script is fetched. */
  function stubWidget(global: string) {
    const widget = {
      params: null as null | Record<string, any>,
      render: vi.fn((_container: HTMLElement, params: Record<string, any>) => {
        widget.params = params;
        return 'widget-1';
      }),
      reset: vi.fn(),
      remove: vi.fn(),
      /** What the provider calls: a solved challenge, an expired token. */
      solve: (token: string) => act(() => widget.params!.callback(token)),
      expire: () => act(() => widget.params!['expired-callback']()),
    };
    vi.stubGlobal(global, widget);
    return widget;
  }

  const guarded =
    (provider: string): ApiHandler =>
    () => ({
      status: 200,
      result: { allow_new_organization: true, bot_check: { provider, site_key: 'site-key-1' } },
    });

  async function fillRegistration() {
    const user = userEvent.setup();
    await fillForm(user, {});
    await fill(user, 'Organization name', 'Hopper Labs');
    return user;
  }

  it.each([
    ['recaptcha', 'grecaptcha'],
    ['hcaptcha', 'hcaptcha'],
    ['turnstile', 'turnstile'],
  ])('%s: the widget on window.%s, drawn with the site key in the dark theme', async (provider, global) => {
    const widget = stubWidget(global);
    stubApi({ 'GET /illumina/preferences': guarded(provider) });
    renderPage(<SignupPage />, { url: '/signup', path: '/signup' });
    await waitFor(() => expect(widget.render).toHaveBeenCalledTimes(1));
    expect(widget.params).toMatchObject({ sitekey: 'site-key-1', theme: 'dark' });
    expect(widget.render.mock.calls[0]![0]).toBeInstanceOf(HTMLElement);
    expect(document.querySelector('script[src*="render=explicit"]')).toBeNull();
  });

  it('keeps Register disabled until the challenge is solved, sends the token, and again once it expires', async () => {
    const widget = stubWidget('turnstile');
    const calls = stubApi({
      'GET /illumina/preferences': guarded('turnstile'),
      'POST /user': () => ({ status: 200, result: true }),
    });
    renderPage(<SignupPage />, { url: '/signup', path: '/signup' });
    await waitFor(() => expect(widget.render).toHaveBeenCalled());
    const user = await fillRegistration();
    const register = screen.getByRole('button', { name: 'Register' });
    expect(register).toBeDisabled();
    widget.solve('token-1');
    expect(register).toBeEnabled();
    widget.expire();
    expect(register).toBeDisabled();
    widget.solve('token-2');
    await user.click(register);
    await screen.findByText('Registration success. Check your email to confirm');
    expect(calls.find((c) => c.key === 'POST /user')!.body).toMatchObject({
      email: 'ada@example.com',
      organization: 'Hopper Labs',
      re_captcha_token: 'token-2',
    });
  });

  it('starts the widget over after a refused registration: the token was spent', async () => {
    const widget = stubWidget('turnstile');
    const calls = stubApi({
      'GET /illumina/preferences': guarded('turnstile'),
      'POST /user': () => ({
        status: 422,
        code: 'bot_check_failed',
        error: 're_captcha_token: bot check failed',
      }),
    });
    renderPage(<SignupPage />, { url: '/signup', path: '/signup' });
    await waitFor(() => expect(widget.render).toHaveBeenCalled());
    const user = await fillRegistration();
    widget.solve('token-1');
    await user.click(screen.getByRole('button', { name: 'Register' }));
    expect(await screen.findByTestId('toast')).toHaveTextContent('re_captcha_token: bot check failed');
    expect(widget.reset).toHaveBeenCalledWith('widget-1');
    expect(screen.getByRole('button', { name: 'Register' })).toBeDisabled();
    widget.solve('token-2');
    await user.click(screen.getByRole('button', { name: 'Register' }));
    await waitFor(() => expect(calls.filter((c) => c.key === 'POST /user')).toHaveLength(2));
    expect(calls.filter((c) => c.key === 'POST /user').map((c) => (c.body as any).re_captcha_token)).toEqual([
      'token-1',
      'token-2',
    ]);
  });

  it('keeps the token through a form problem caught before sending', async () => {
    const widget = stubWidget('turnstile');
    const calls = stubApi({ 'GET /illumina/preferences': guarded('turnstile') });
    renderPage(<SignupPage />, { url: '/signup', path: '/signup' });
    await waitFor(() => expect(widget.render).toHaveBeenCalled());
    const user = await fillRegistration();
    await fill(user, 'Confirm password', 'Other-pass-2');
    widget.solve('token-1');
    await user.click(screen.getByRole('button', { name: 'Register' }));
    expect(await screen.findByTestId('toast')).toHaveTextContent("Passwords don't match");
    expect(widget.reset).not.toHaveBeenCalled();
    expect(screen.getByRole('button', { name: 'Register' })).toBeEnabled();
    expect(calls.some((c) => c.key === 'POST /user')).toBe(false);
  });

  it('draws nothing and loads nothing when bot_check is null, and sends no token', async () => {
    const widget = stubWidget('turnstile');
    const calls = stubApi({
      'GET /illumina/preferences': () => ({
        status: 200,
        result: { allow_new_organization: true, bot_check: null },
      }),
      'POST /user': () => ({ status: 200, result: true }),
    });
    renderPage(<SignupPage />, { url: '/signup', path: '/signup' });
    const user = userEvent.setup();
    await screen.findByRole('tab', { name: 'New Organization' });
    await fillForm(user, {});
    await fill(user, 'Organization name', 'Hopper Labs');
    await user.click(screen.getByRole('button', { name: 'Register' }));
    await screen.findByText('Registration success. Check your email to confirm');
    expect(widget.render).not.toHaveBeenCalled();
    expect(document.querySelectorAll('script')).toHaveLength(0);
    expect(calls.find((c) => c.key === 'POST /user')!.body).not.toHaveProperty('re_captcha_token');
  });
});
