import { useEffect, useRef, useState } from 'react';

/** Verification redirect: from 5, one tick a second (spec 1 §9). */
export const VERIFICATION_REDIRECT_SECONDS = 5;
export const COUNTDOWN_TICK_MS = 1000;

/**
 * Counts down from `from` once `active`, one tick every `tickMs`, and calls `onDone` when
 * it reaches 0. Returns the current count.
 */
export function useCountdown(from: number, active: boolean, onDone: () => void, tickMs = COUNTDOWN_TICK_MS) {
  const [count, setCount] = useState(from);
  const done = useRef(onDone);
  useEffect(() => {
    done.current = onDone;
  });
  useEffect(() => {
    if (!active) return;
    if (count <= 0) {
      done.current();
      return;
    }
    const timer = setTimeout(() => setCount((c) => c - 1), tickMs);
    return () => clearTimeout(timer);
  }, [active, count, tickMs]);
  return count;
}
