import { useQueryClient } from '@tanstack/react-query';
import { createContext, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { keys } from '../../../api/queries';
import { toasts } from '../../toasts/toast-store';
import { handleRealtimeMessage } from './messages';
import { RealtimeClient, realtimeUrl, type RealtimeStatus } from './realtime-client';

interface RealtimeState {
  status: RealtimeStatus;
  /** Opens the socket again after it closed (the dot's click). */
  reconnect: () => void;
}

const RealtimeContext = createContext<RealtimeState>({ status: 'closed', reconnect: () => {} });

export const useRealtime = () => useContext(RealtimeContext);

/**
 * The realtime socket of the signed-in person (rendered inside the authenticated shell):
 * opened on mount, closed with 1000 on unmount (sign-out). Messages become toasts and,
 * with data, entries of the bell.
 */
export function RealtimeProvider({ children, url }: { children: ReactNode; url?: string }) {
  const client = useQueryClient();
  const { i18n } = useTranslation();
  const [status, setStatus] = useState<RealtimeStatus>('connecting');
  const socket = useRef<RealtimeClient | null>(null);

  useEffect(() => {
    let connectedBefore = false;
    const realtime = new RealtimeClient({
      url: url ?? realtimeUrl(),
      onStatus: (next) => {
        setStatus(next);
        if (next !== 'connected') return;
        // Messages sent while the socket was down (a platform restart) are lost: on reconnecting,
        // what is on screen is asked again. The bell keeps its list (it holds those messages).
        if (connectedBefore)
          void client.invalidateQueries({
            predicate: (query) => query.queryKey[0] !== keys.notifications[0],
            refetchType: 'active',
          });
        connectedBefore = true;
      },
      onMessage: (message) => {
        if (message) handleRealtimeMessage(client, message);
      },
      onDown: () =>
        toasts.show({
          type: 'danger',
          title: i18n.t('shell:realtime.downTitle'),
          text: i18n.t('shell:realtime.downText'),
        }),
      prepareReconnect: () => client.refetchQueries({ queryKey: keys.me }),
    });
    socket.current = realtime;
    realtime.connect();
    return () => {
      realtime.close();
      socket.current = null;
    };
  }, [client, i18n, url]);

  const value = useMemo(() => ({ status, reconnect: () => socket.current?.reconnect() }), [status]);
  return <RealtimeContext.Provider value={value}>{children}</RealtimeContext.Provider>;
}
