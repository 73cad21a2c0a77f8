import { screen, waitFor, within } from '@testing-library/react';
import userEventBase from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Me } from '../../api/answers';
import i18n, { LANGUAGE_KEY, setLanguage } from '../../i18n';
import { stubApi } from '../../test-support/api-stub';
import { aMe } from '../../test-support/fixtures';
import { stubWindowWidth } from '../../test-support/media';
import { clearToasts, renderWithProviders } from '../../test-support/render';
import ProfilePage from './ProfilePage';

const ME = aMe();

const userEvent = userEventBase.setup({ delay: null });

afterEach(async () => {
  vi.unstubAllGlobals();
  clearToasts();
  await setLanguage('en');
  localStorage.clear();
});

function serveMe(me: () => Me = () => ME) {
  return stubApi(({ method, path, body }) => {
    if (method === 'GET' && path === '/me') return { result: me() };
    if (method === 'POST' && path === '/organizations')
      return { status: 201, result: { id: 'org-3', name: (body as { name: string }).name } };
    return undefined;
  });
}

// jsdom renders MUI slowly when every test file runs at once.
describe('/profile', { timeout: 15_000 }, () => {
  it("shows the sidebar 'Users Settings' and the person's name, e-mail and organizations", async () => {
    serveMe();
    renderWithProviders(<ProfilePage />, { route: '/profile' });
    const nav = screen.getByRole('navigation', { name: 'Users Settings' });
    expect(
      within(nav)
        .getAllByRole('button')
        .map((b) => b.textContent),
    ).toEqual(['Profile', 'Security', 'Preferences']);
    expect(await screen.findByTestId('full-name')).toHaveTextContent('Ada Lovelace');
    expect(screen.getByText('ada@example.com')).toBeInTheDocument();
    expect(screen.getByText('Analytical Engines')).toBeInTheDocument();
  });

  it('switches tabs from the sidebar', async () => {
    serveMe();
    renderWithProviders(<ProfilePage />, { route: '/profile' });
    await screen.findByTestId('full-name');
    await userEvent.click(screen.getByRole('button', { name: 'Security' }));
    expect(screen.getByRole('heading', { name: 'Change password' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Security' })).toHaveAttribute('aria-current', 'page');
    await userEvent.click(screen.getByRole('button', { name: 'Preferences' }));
    expect(screen.getByRole('combobox', { name: 'Language' })).toBeInTheDocument();
  });

  it('puts the tabs on top on a phone', async () => {
    stubWindowWidth(574); // a phone
    serveMe();
    renderWithProviders(<ProfilePage />, { route: '/profile?tab=security' });
    expect(screen.queryByRole('navigation')).not.toBeInTheDocument();
    const tabs = screen.getAllByRole('tab');
    expect(tabs.map((tab) => tab.textContent)).toEqual(['Profile', 'Security', 'Preferences']);
    expect(screen.getByRole('tab', { name: 'Security' })).toHaveAttribute('aria-selected', 'true');
    await userEvent.click(screen.getByRole('tab', { name: 'Profile' }));
    expect(await screen.findByTestId('full-name')).toBeInTheDocument();
  });

  it('lists a new organization once it is created', async () => {
    let me = ME;
    serveMe(() => me);
    renderWithProviders(<ProfilePage />, { route: '/profile' });
    await screen.findByTestId('full-name');
    await userEvent.click(screen.getByRole('button', { name: 'Create new Organization' }));
    const dialog = within(await screen.findByRole('dialog'));
    me = {
      ...ME,
      organizations: [
        ...ME.organizations,
        { id: 'org-3', name: 'Babbage Works', role: 'organization_admin' },
      ],
    };
    await userEvent.click(dialog.getByRole('textbox', { name: /Name/ }));
    await userEvent.paste('Babbage Works');
    await userEvent.keyboard('{Enter}');
    expect(await within(screen.getByTestId('organizations')).findByText('Babbage Works')).toBeInTheDocument();
  });

  it.each([
    ['Italiano', 'it', 'Impostazioni utente', 'Lingua'],
    ['Français', 'fr', 'Paramètres utilisateur', 'Langue'],
  ])('switches the whole interface to %s at once and remembers it', async (name, code, title, label) => {
    serveMe();
    renderWithProviders(<ProfilePage />, { route: '/profile?tab=preferences' });
    expect(await screen.findByRole('button', { name: 'Save' })).toBeDisabled();
    expect(screen.getByRole('radio', { name: 'Light' })).toBeDisabled();
    expect(screen.getByRole('radio', { name: 'Dark' })).toBeChecked();
    expect(screen.getByRole('combobox', { name: 'Time zone' })).toHaveAttribute('aria-disabled', 'true');
    expect(screen.getByRole('combobox', { name: 'Time zone' })).toHaveTextContent(
      Intl.DateTimeFormat().resolvedOptions().timeZone,
    );

    await userEvent.click(screen.getByRole('combobox', { name: 'Language' }));
    await userEvent.click(await screen.findByRole('option', { name }));

    await waitFor(() => expect(screen.getByRole('navigation', { name: title })).toBeInTheDocument());
    expect(screen.getByRole('combobox', { name: label })).toHaveTextContent(name);
    expect(i18n.language).toBe(code);
    expect(localStorage.getItem(LANGUAGE_KEY)).toBe(code);
  });
});
