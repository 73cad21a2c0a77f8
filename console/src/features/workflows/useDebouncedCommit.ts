import { useEffect, useRef, useState } from 'react';
import { FORM_DEBOUNCE_MS } from './graph/model';

/**
 * A form's local value, committed once typing pauses for 500 ms (spec 2 §4) and on unmount, so
 * closing the panel never loses what was typed. A new `source` (undo, a commit) resets the form.
 */
export function useDebouncedCommit<S, T>(
  source: S,
  toForm: (source: S) => T,
  commit: (value: T) => void,
): [T, (value: T) => void] {
  const [value, setValue] = useState(() => toForm(source));
  const pending = useRef<T | null>(null);
  const commitRef = useRef(commit);
  commitRef.current = commit;

  const toFormRef = useRef(toForm);
  toFormRef.current = toForm;
  useEffect(() => {
    setValue(toFormRef.current(source));
    pending.current = null;
  }, [source]);

  useEffect(() => {
    if (pending.current === null) return;
    const timer = setTimeout(() => {
      if (pending.current !== null) commitRef.current(pending.current);
      pending.current = null;
    }, FORM_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [value]);

  useEffect(
    () => () => {
      if (pending.current !== null) commitRef.current(pending.current);
    },
    [],
  );

  const change = (next: T) => {
    pending.current = next;
    setValue(next);
  };
  return [value, change];
}
