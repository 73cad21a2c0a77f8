import { screen, waitFor, within } from '@testing-library/react';
import userEventBase from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { stubApi, type ApiHandler } from '../../test-support/api-stub';
import { aMe } from '../../test-support/fixtures';
import { clearToasts, renderWithProviders } from '../../test-support/render';
import { ProfileSection } from './ProfileSection';

// No pause between keystrokes: typing e-mails key by key is slow enough in jsdom.
const userEvent = userEventBase.setup({ delay: null });

afterEach(() => {
  vi.unstubAllGlobals();
  clearToasts();
});

function setup(answer: ApiHandler) {
  const calls = stubApi((call) =>
    call.method === 'POST' && call.path === '/organizations' ? answer(call) : undefined,
  );
  renderWithProviders(<ProfileSection me={aMe()} />);
  return calls;
}

/** Pastes the text into the field (one event instead of one per key), then presses the keys. */
async function enter(field: HTMLElement, text: string, keys = '') {
  await userEvent.click(field);
  if (text) await userEvent.paste(text);
  if (keys) await userEvent.keyboard(keys);
}

async function openDialog() {
  await userEvent.click(screen.getByRole('button', { name: 'Create new Organization' }));
  return screen.findByRole('dialog', { name: 'Create new Organization' });
}

// jsdom renders MUI slowly when every test file runs at once.
describe('Create new Organization', { timeout: 15_000 }, () => {
  it('lists the organizations with their role', () => {
    setup(() => undefined);
    const list = within(screen.getByTestId('organizations'));
    expect(list.getByText('Analytical Engines').closest('li')).toHaveTextContent('Organization admin');
    expect(list.getByText('Analytical Engines').closest('li')).toHaveTextContent('Current');
    expect(list.getByText('Difference Labs').closest('li')).toHaveTextContent('User');
  });

  it('keeps Save disabled while the name is blank', async () => {
    setup(() => undefined);
    const dialog = within(await openDialog());
    const save = dialog.getByRole('button', { name: 'Save' });
    expect(save).toBeDisabled();

    const name = dialog.getByRole('textbox', { name: /Name/ });
    await userEvent.type(name, '   ');
    expect(save).toBeDisabled();
    await userEvent.type(name, 'x');
    expect(save).toBeEnabled();
    await userEvent.clear(name);
    expect(save).toBeDisabled();
  });

  it('does not submit a blank name with Enter', async () => {
    const calls = setup(() => ({ result: { id: 'new' } }));
    const dialog = within(await openDialog());
    await userEvent.type(dialog.getByRole('textbox', { name: /Name/ }), '  {Enter}');
    expect(calls.filter((c) => c.method === 'POST')).toHaveLength(0);
  });

  it('adds admins as chips, refuses what is not an e-mail, and Enter in the name submits', async () => {
    const calls = setup(() => ({ status: 201, result: { id: 'new' } }));
    const dialog = within(await openDialog());
    const admins = dialog.getByRole('textbox', { name: 'Admins' });
    await enter(admins, 'grace@example.com', '{Enter}');
    await enter(admins, 'alan@example.com', ',');
    await enter(admins, 'not-an-email', '{Enter}');
    expect(dialog.getByText('Not a valid e-mail address')).toBeInTheDocument();
    expect(
      within(dialog.getByTestId('admins'))
        .getAllByRole('button')
        .map((chip) => chip.textContent),
    ).toEqual(['grace@example.com', 'alan@example.com']);
    await userEvent.clear(admins);

    await enter(dialog.getByRole('textbox', { name: /Name/ }), '  Babbage Works  ', '{Enter}');
    expect(await screen.findByText('Organization Babbage Works created.')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    const post = calls.find((c) => c.method === 'POST')!;
    expect(post.body).toEqual({
      name: 'Babbage Works',
      admins: ['grace@example.com', 'alan@example.com'],
      quota: { cpu: 0, memory: 0, disk: 0 },
    });
  });

  it("stays open and shows the server's message when creating fails", async () => {
    const calls = setup(() => ({
      status: 403,
      error: 'New organizations are not allowed',
      code: 'forbidden',
    }));
    const dialog = within(await openDialog());
    await enter(dialog.getByRole('textbox', { name: /Name/ }), 'Babbage Works');
    await userEvent.click(dialog.getByRole('button', { name: 'Save' }));

    expect(await screen.findByText('New organizations are not allowed')).toBeInTheDocument();
    expect(screen.getByText('Request failed')).toBeInTheDocument();
    expect(screen.getByRole('dialog', { name: 'Create new Organization' })).toBeInTheDocument();
    expect(dialog.getByRole('textbox', { name: /Name/ })).toHaveValue('Babbage Works');
    expect(calls.filter((c) => c.method === 'POST')).toHaveLength(1);
  });
});
