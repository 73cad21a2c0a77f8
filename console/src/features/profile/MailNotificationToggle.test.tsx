import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { stubApi } from '../../test-support/api-stub';
import { aMe } from '../../test-support/fixtures';
import { clearToasts, renderWithProviders } from '../../test-support/render';
import { MAIL_NOTIFICATION_DEBOUNCE_MS, MailNotificationToggle } from './MailNotificationToggle';
import { ProfileSection } from './ProfileSection';

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  clearToasts();
});

const toggle = () => screen.getByRole('switch', { name: /E-mail notifications/ });

// jsdom renders MUI slowly when every test file runs at once.
describe('e-mail notifications toggle', { timeout: 15_000 }, () => {
  it('saves once, 400 ms after the last of several quick changes, with the final value', () => {
    vi.useFakeTimers();
    const onSave = vi.fn();
    render(<MailNotificationToggle value={false} onSave={onSave} />);

    fireEvent.click(toggle()); // on
    act(() => vi.advanceTimersByTime(300));
    fireEvent.click(toggle()); // off
    act(() => vi.advanceTimersByTime(300));
    fireEvent.click(toggle()); // on
    expect(toggle()).toBeChecked();

    act(() => vi.advanceTimersByTime(MAIL_NOTIFICATION_DEBOUNCE_MS - 1));
    expect(onSave).not.toHaveBeenCalled();
    act(() => vi.advanceTimersByTime(1));
    expect(onSave).toHaveBeenCalledTimes(1);
    expect(onSave).toHaveBeenCalledWith(true);
  });

  it('saves nothing when the quick changes end on the saved value', () => {
    vi.useFakeTimers();
    const onSave = vi.fn();
    render(<MailNotificationToggle value={true} onSave={onSave} />);
    fireEvent.click(toggle());
    fireEvent.click(toggle());
    act(() => vi.advanceTimersByTime(5 * MAIL_NOTIFICATION_DEBOUNCE_MS));
    expect(onSave).not.toHaveBeenCalled();
    expect(toggle()).toBeChecked();
  });

  it('saves at once when the page is left within the 400 ms', () => {
    vi.useFakeTimers();
    const onSave = vi.fn();
    const { unmount } = render(<MailNotificationToggle value={false} onSave={onSave} />);
    fireEvent.click(toggle());
    unmount();
    expect(onSave).toHaveBeenCalledWith(true);
  });

  it('sends one PUT /preferences/user with the final value', async () => {
    const calls = stubApi(({ method, path }) =>
      method === 'PUT' && path === '/preferences/user' ? { result: true } : undefined,
    );
    renderWithProviders(<ProfileSection me={aMe()} />);
    fireEvent.click(toggle());
    fireEvent.click(toggle());
    fireEvent.click(toggle());

    expect(await screen.findByText('Preferences saved.')).toBeInTheDocument();
    const puts = calls.filter((c) => c.path === '/preferences/user');
    expect(puts).toHaveLength(1);
    expect(puts[0]!.body).toEqual({ preferences: { mail_notification: true } });
  });

  it('goes back to the saved value and says the request failed (no server internals)', async () => {
    stubApi(({ path }) =>
      path === '/preferences/user' ? { status: 500, error: 'database unavailable' } : undefined,
    );
    renderWithProviders(<ProfileSection me={aMe()} />);
    fireEvent.click(toggle());
    expect(toggle()).toBeChecked();

    expect(await screen.findByText('Something went wrong, please retry.')).toBeInTheDocument();
    expect(screen.queryByText('database unavailable')).not.toBeInTheDocument();
    expect(screen.getByText('Request failed')).toBeInTheDocument();
    await waitFor(() => expect(toggle()).not.toBeChecked());
  });
});
