import { useCallback, useEffect, useRef, useState } from 'react';

/**
 * A button lock that lifts itself after `ms` (Start Now 3 s, retry/restart 1.5 s: spec 2 §9).
 * Keyed, so one hook serves a list of runs; cleared timers on unmount.
 */
export function useTimedLock(ms: number) {
  const [locked, setLocked] = useState<ReadonlySet<string>>(new Set());
  const timers = useRef(new Map<string, ReturnType<typeof setTimeout>>());
  useEffect(() => {
    const pending = timers.current;
    return () => pending.forEach(clearTimeout);
  }, []);
  const lock = useCallback(
    (key = '') => {
      clearTimeout(timers.current.get(key));
      setLocked((s) => new Set(s).add(key));
      timers.current.set(
        key,
        setTimeout(() => {
          timers.current.delete(key);
          setLocked((s) => {
            const next = new Set(s);
            next.delete(key);
            return next;
          });
        }, ms),
      );
    },
    [ms],
  );
  const isLocked = useCallback((key = '') => locked.has(key), [locked]);
  return { lock, isLocked };
}
