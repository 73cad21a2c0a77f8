import { screen, waitFor } from '@testing-library/react';
import userEventBase from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { stubApi, type ApiAnswer } from '../../test-support/api-stub';
import { clearToasts, renderWithProviders } from '../../test-support/render';
import { SecuritySection } from './SecuritySection';

const userEvent = userEventBase.setup({ delay: null });

afterEach(() => {
  vi.unstubAllGlobals();
  clearToasts();
});

const field = (name: string) => screen.getByLabelText(new RegExp(`^${name}`)) as HTMLInputElement;
async function fill(current: string, next: string, repeat: string) {
  for (const [name, value] of [
    ['Current password', current],
    ['New password', next],
    ['Repeat password', repeat],
  ] as const) {
    if (!value) continue;
    await userEvent.click(field(name));
    await userEvent.paste(value);
  }
}
const save = () => screen.getByRole('button', { name: 'Save' });

function setup(answer: ApiAnswer = { result: true }) {
  const calls = stubApi(({ method, path }) =>
    method === 'PUT' && path === '/password' ? answer : undefined,
  );
  renderWithProviders(<SecuritySection />);
  return calls;
}

// jsdom renders MUI slowly when every test file runs at once.
describe('change password', { timeout: 15_000 }, () => {
  it.each([
    ['', 'Strong-pass-1', 'Strong-pass-1'],
    ['Old-pass-1', '', 'Strong-pass-1'],
    ['Old-pass-1', 'Strong-pass-1', ''],
  ])('needs all three fields to Save (%j, %j, %j)', async (current, next, repeat) => {
    setup();
    await fill(current, next, repeat);
    expect(save()).toBeDisabled();
  });

  it.each([
    {
      what: 'repeat differs',
      fields: ['Old-pass-1', 'Strong-pass-1', 'Strong-pass-2'],
      title: 'Invalid Password',
      text: 'New password and repeat password mismatch.',
      sent: false,
    },
    {
      what: 'too weak (2 of 5 rules)',
      fields: ['Old-pass-1', 'weakpass', 'weakpass'],
      title: 'Invalid Password',
      text: 'Password too weak',
      sent: false,
    },
    {
      what: 'the current password is wrong',
      fields: ['Wrong-pass-1', 'Strong-pass-1', 'Strong-pass-1'],
      answer: {
        status: 400,
        error: 'old_password: Invalid credential',
        code: 'invalid_credential',
      } as ApiAnswer,
      title: 'Invalid Password',
      text: 'The current password is wrong.',
      sent: true,
    },
    {
      what: 'the server refuses for another reason',
      fields: ['Old-pass-1', 'Strong-pass-1', 'Strong-pass-1'],
      answer: {
        status: 429,
        error: 'Too many requests, retry in a minute',
        code: 'rate_limited',
      } as ApiAnswer,
      title: 'Request failed',
      text: 'Too many requests, retry in a minute',
      sent: true,
    },
    {
      what: 'it is accepted',
      fields: ['Old-pass-1', 'Strong-pass-1', 'Strong-pass-1'],
      answer: { result: true } as ApiAnswer,
      title: 'Request success',
      text: 'Password changed successfully!',
      sent: true,
    },
  ])('toasts $title / $text when $what', async ({ fields, answer, title, text, sent }) => {
    const calls = setup(answer);
    await fill(fields[0]!, fields[1]!, fields[2]!);
    await userEvent.click(save());

    const toast = await screen.findByTestId('toast');
    expect(toast).toHaveTextContent(title);
    expect(toast).toHaveTextContent(text);
    expect(screen.getAllByTestId('toast')).toHaveLength(1);
    if (sent) expect(calls).toEqual([expect.objectContaining({ method: 'PUT', path: '/password' })]);
    else expect(calls).toHaveLength(0);
    if (sent) expect(calls[0]!.body).toEqual({ old_password: fields[0], new_password: fields[1] });
  });

  it('keeps the fields after a failure', async () => {
    setup({ status: 400, error: 'old_password: Invalid credential', code: 'invalid_credential' });
    await fill('Wrong-pass-1', 'Strong-pass-1', 'Strong-pass-1');
    await userEvent.click(save());
    await screen.findByTestId('toast');
    expect(field('Current password')).toHaveValue('Wrong-pass-1');
    expect(save()).toBeEnabled();
  });

  it('clears the fields after a change', async () => {
    setup();
    await fill('Old-pass-1', 'Strong-pass-1', 'Strong-pass-1');
    await userEvent.click(save());
    await screen.findByText('Password changed successfully!');
    await waitFor(() => expect(field('New password')).toHaveValue(''));
    expect(field('Current password')).toHaveValue('');
    expect(field('Repeat password')).toHaveValue('');
    expect(save()).toBeDisabled();
  });

  it.each([
    ['', [false, false, false, false, false], ''],
    ['abc', [false, false, true, false, false], 'Too weak'],
    ['abcdefgh', [true, false, true, false, false], 'Too weak'],
    ['Abcdefgh1', [true, true, true, true, false], 'Strong'],
    ['Abcdef1!', [true, true, true, true, true], 'Strong'],
    ['ABC12!', [false, true, false, true, true], 'Too weak'],
  ])('the strength meter of %j shows the 5 rules met: %j', async (password, met, verdict) => {
    setup();
    if (password) {
      await userEvent.click(field('New password'));
      await userEvent.paste(password);
    }
    const rules = screen.getByRole('list', { name: 'Password rules' }).querySelectorAll('li');
    expect([...rules].map((li) => li.dataset.met === 'true')).toEqual(met);
    expect(screen.getByTestId('strength')).toHaveTextContent(verdict);
    expect(screen.getByRole('progressbar', { name: 'Password strength' })).toHaveAttribute(
      'aria-valuenow',
      String(met.filter(Boolean).length * 20),
    );
  });
});
