import { LinearProgress } from '@mui/material';
import { useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import { inFlightStore } from '../../api/client';

/** A thin bar at the very top while any API request is in flight (spec 1 §2.2). */
export function GlobalProgress() {
  const { t } = useTranslation();
  const inFlight = useSyncExternalStore(inFlightStore.subscribe, inFlightStore.get);
  if (inFlight <= 0) return null;
  return (
    <LinearProgress
      aria-label={t('loading')}
      sx={{
        position: 'fixed',
        top: 0,
        left: 0,
        right: 0,
        height: 3,
        zIndex: (theme) => theme.zIndex.appBar + 1,
      }}
    />
  );
}
