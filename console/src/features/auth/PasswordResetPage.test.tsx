import { screen } from '@testing-library/react';
import userEvent, { type UserEvent } from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { stubApi, type ApiAnswer } from '../../test-support/api-stub';
import { renderPage } from '../../test-support/render';
import PasswordResetPage from './PasswordResetPage';

afterEach(() => vi.unstubAllGlobals());

async function fill(user: UserEvent, label: string, value: string) {
  const field = screen.getByLabelText(label);
  await user.clear(field);
  await user.click(field);
  await user.paste(value);
}

describe('PasswordResetPage', { timeout: 20_000 }, () => {
  it.each([
    ['both empty', '', '', false],
    ['confirmation empty', 'Strong-pass-1', '', false],
    ['a mismatch', 'Strong-pass-1', 'Strong-pass-2', false],
    ['a weak password', 'weakpass', 'weakpass', false],
    ['a strong matching pair', 'Strong-pass-1', 'Strong-pass-1', true],
  ])('with %s the Confirm button is enabled: %s', async (_what, password, confirm, enabled) => {
    stubApi({});
    renderPage(<PasswordResetPage />, { url: '/password/tok', path: '/password/:token' });
    const user = userEvent.setup();
    if (password) await fill(user, 'Password', password);
    if (confirm) await fill(user, 'Confirm password', confirm);
    expect(screen.getByRole('button', { name: 'Confirm' })).toHaveProperty('disabled', !enabled);
  });

  it("says 'Password are not matching' on mismatch, and stops saying it once they match", async () => {
    stubApi({});
    renderPage(<PasswordResetPage />, { url: '/password/tok', path: '/password/:token' });
    const user = userEvent.setup();
    await fill(user, 'Password', 'Strong-pass-1');
    await fill(user, 'Confirm password', 'Strong-pass-');
    expect(screen.getByText('Password are not matching')).toBeInTheDocument();
    expect(screen.getByLabelText('Confirm password')).toHaveAttribute('aria-invalid', 'true');
    await user.type(screen.getByLabelText('Confirm password'), '1');
    expect(screen.queryByText('Password are not matching')).toBeNull();
  });

  it.each<[string, ApiAnswer, string]>([
    ['success', { status: 200, result: true }, 'Password changed successfully!'],
    [
      'an unknown, used or expired link',
      { status: 400, error: 'token: unknown, used or expired' },
      "The password was not changed: this link is unknown, used or expired. Ask for a new one with 'Forgot password?' on the sign-in page.",
    ],
    [
      'a malformed link',
      { status: 422, error: 'token: at least 10 characters' },
      'this link is unknown, used or expired.',
    ],
    [
      'another refusal',
      { status: 422, error: 'password: at least 8 characters' },
      'The password was not changed: password: at least 8 characters',
    ],
  ])('on %s shows the outcome and keeps Confirm disabled', async (_what, answer, text) => {
    const calls = stubApi({ 'POST /password/tok-7': () => answer });
    renderPage(<PasswordResetPage />, { url: '/password/tok-7', path: '/password/:token' });
    const user = userEvent.setup();
    await fill(user, 'Password', 'Strong-pass-1');
    await fill(user, 'Confirm password', 'Strong-pass-1');
    await user.click(screen.getByRole('button', { name: 'Confirm' }));
    expect(await screen.findByText(text, { exact: false })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Confirm' })).toBeDisabled();
    expect(calls).toHaveLength(1);
    expect(calls[0]!.body).toEqual({ password: 'Strong-pass-1' });
  });
});
