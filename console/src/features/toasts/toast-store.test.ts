import { afterEach, describe, expect, it, vi } from 'vitest';
import { createToastStore, toastType } from './toast-store';

describe('toast store', () => {
  afterEach(() => vi.useRealTimers());

  it('keeps a toast for its lifetime, then drops it', () => {
    vi.useFakeTimers();
    const store = createToastStore(6000);
    store.show({ title: 'Request success', text: 'Saved.' });
    expect(store.get()).toHaveLength(1);
    vi.advanceTimersByTime(5999);
    expect(store.get()).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(store.get()).toHaveLength(0);
  });

  it.each([
    ['success', 'success'],
    ['danger', 'danger'],
    ['error', 'danger'],
    ['', 'primary'],
    [undefined, 'primary'],
    ['mauve', 'primary'],
  ])('maps the message type %j to %s', (input, expected) => {
    expect(toastType(input)).toBe(expected);
  });
});
