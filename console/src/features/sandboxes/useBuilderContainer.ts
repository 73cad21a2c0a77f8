import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError } from '../../api/client';
import i18n from '../../i18n';
import { toastFailure } from '../toasts/outcome';
import { toasts } from '../toasts/toast-store';
import { builder } from './queries';

/** Sockets that close before ever opening, one after another, before giving up. */
const MAX_FAILED_STARTS = 3;

/**
 * The builder container behind the terminal (spec 1 §4): started on demand, stopped when the
 * page is left (DELETE) or unloaded (a beacon). A socket that closes shows 'Terminal disconnected.
 * Reconnecting...': a socket that had been open reconnects to the same container (kept for a
 * grace period), one that never opened means the container is gone and it is started again.
 */
export function useBuilderContainer() {
  const [container, setContainer] = useState<string | null>(null);
  const [starting, setStarting] = useState(false);
  /** Why the last start failed, shown in the panel (the toast alone is gone after 6 s). */
  const [failure, setFailure] = useState<string | null>(null);
  /** Changes to open a new socket to the same container. */
  const [connection, setConnection] = useState(0);
  const current = useRef<string | null>(null);
  const how = useRef<(() => Promise<string>) | null>(null);
  const failedStarts = useRef(0);

  const start = useCallback(async (startWith: () => Promise<string>) => {
    how.current = startWith;
    setStarting(true);
    setFailure(null);
    try {
      const id = await startWith();
      current.current = id;
      setContainer(id);
    } catch (error) {
      toastFailure(error);
      // A 503 says what the machine lacks (bubblewrap): worth showing where the terminal would be.
      setFailure(error instanceof ApiError && error.status === 503 ? error.message : '');
    } finally {
      setStarting(false);
    }
  }, []);

  useEffect(() => {
    const unload = () => {
      if (current.current) builder.stopOnUnload(current.current);
    };
    window.addEventListener('pagehide', unload);
    return () => {
      window.removeEventListener('pagehide', unload);
      const left = current.current;
      current.current = null;
      if (left) builder.stop(left).catch(() => undefined);
    };
  }, []);

  const onClosed = useCallback(
    (opened: boolean) => {
      toasts.show({
        title: i18n.t('sandboxes:terminalPanel'),
        text: i18n.t('sandboxes:terminalDisconnected'),
        type: 'warning',
      });
      if (opened) {
        failedStarts.current = 0;
        setConnection((n) => n + 1);
        return;
      }
      failedStarts.current += 1;
      const gone = current.current;
      current.current = null;
      setContainer(null);
      if (gone) builder.stop(gone).catch(() => undefined);
      if (failedStarts.current >= MAX_FAILED_STARTS || !how.current) {
        toasts.show({
          title: i18n.t('common:requestFailed'),
          text: i18n.t('sandboxes:terminalFailed'),
          type: 'danger',
        });
        return;
      }
      void start(how.current);
    },
    [start],
  );

  const retry = useCallback(() => {
    failedStarts.current = 0;
    if (how.current) void start(how.current);
  }, [start]);

  return { container, connection, starting, failure, start, retry, onClosed };
}
