import { act, renderHook, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { stubApi } from '../../test-support/api-stub';
import { renderPage } from '../../test-support/render';
import { useCountdown } from './useCountdown';
import VerificationPage from './VerificationPage';

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('useCountdown', () => {
  it('counts 5, 4, 3, 2, 1 one second apart and then calls onDone once', () => {
    vi.useFakeTimers();
    const onDone = vi.fn();
    const { result } = renderHook(() => useCountdown(5, true, onDone));
    const seen = [result.current];
    for (let i = 0; i < 5; i++) {
      act(() => vi.advanceTimersByTime(999));
      expect(result.current).toBe(seen.at(-1)); // not a millisecond early
      act(() => vi.advanceTimersByTime(1));
      seen.push(result.current);
    }
    expect(seen).toEqual([5, 4, 3, 2, 1, 0]);
    expect(onDone).toHaveBeenCalledTimes(1);
    act(() => vi.advanceTimersByTime(10_000));
    expect(onDone).toHaveBeenCalledTimes(1);
  });

  it('does not start before it is active', () => {
    vi.useFakeTimers();
    const onDone = vi.fn();
    const { result, rerender } = renderHook(({ active }) => useCountdown(5, active, onDone), {
      initialProps: { active: false },
    });
    act(() => vi.advanceTimersByTime(3000));
    expect(result.current).toBe(5);
    rerender({ active: true });
    act(() => vi.advanceTimersByTime(1000));
    act(() => vi.advanceTimersByTime(1000));
    expect(result.current).toBe(3);
    expect(onDone).not.toHaveBeenCalled();
  });
});

describe('VerificationPage', () => {
  it('shows a spinner, then Verification success with the countdown, then goes to /login', async () => {
    let answer: (a: { status: number; result: unknown }) => void = () => {};
    const calls = stubApi({ 'GET /verify/tok-1': () => new Promise((resolve) => (answer = resolve)) });
    renderPage(<VerificationPage />, { url: '/verification/tok-1', path: '/verification/:token' });
    expect(screen.getByLabelText('Verifying your e-mail…')).toBeInTheDocument();
    await waitFor(() => expect(calls).toHaveLength(1));

    vi.useFakeTimers();
    // Each step lets the answer, React Query's batched notification and React's render run.
    const tick = (ms: number) => act(() => vi.advanceTimersByTimeAsync(ms));
    answer({ status: 200, result: true });
    await tick(0);
    expect(screen.getByText('Verification success')).toBeInTheDocument();
    expect(screen.getByText('You will redirect to the login page in 5 sec...')).toBeInTheDocument();
    await tick(999);
    expect(screen.getByText('You will redirect to the login page in 5 sec...')).toBeInTheDocument();
    await tick(1);
    expect(screen.getByText('You will redirect to the login page in 4 sec...')).toBeInTheDocument();
    for (const count of [3, 2, 1]) {
      await tick(1000);
      expect(screen.getByText(`You will redirect to the login page in ${count} sec...`)).toBeInTheDocument();
    }
    expect(screen.getByTestId('location')).toHaveTextContent('/verification/tok-1');
    await tick(1000);
    expect(screen.getByTestId('location')).toHaveTextContent(/^\/login$/);
  });

  it.each([
    ['a 400 answer', { status: 400, error: 'Verification fail' }],
    ['a falsy result', { status: 200, result: false }],
  ])("shows 'Verification fail' on %s and stays", async (_what, answer) => {
    stubApi({ 'GET /verify/bad': () => answer });
    renderPage(<VerificationPage />, { url: '/verification/bad', path: '/verification/:token' });
    expect(await screen.findByText('Verification fail')).toBeInTheDocument();
    expect(screen.queryByText(/You will redirect/)).toBeNull();
    expect(screen.getByTestId('location')).toHaveTextContent('/verification/bad');
  });
});
