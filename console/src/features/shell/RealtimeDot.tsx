import { Box, IconButton, Tooltip } from '@mui/material';
import { keyframes } from '@mui/material/styles';
import { useTranslation } from 'react-i18next';
import type { RealtimeStatus } from './realtime/realtime-client';

const COLOURS: Record<RealtimeStatus, string> = {
  connected: '#4caf50', // green
  connecting: '#ffb300', // amber
  closed: '#f44336', // red
};

const pulse = keyframes`
  0%, 100% { opacity: 1; }
  50% { opacity: 0.35; }
`;

/** The realtime status dot; when closed, a click opens the socket again (spec 1 §2.2). */
export function RealtimeDot({ status, onReconnect }: { status: RealtimeStatus; onReconnect: () => void }) {
  const { t } = useTranslation('shell');
  const label = t(`realtime.${status}`);
  const closed = status === 'closed';
  return (
    <Tooltip title={closed ? `${label} · ${t('realtime.reconnectHint')}` : label}>
      <IconButton
        aria-label={label}
        data-status={status}
        onClick={closed ? onReconnect : undefined}
        size="small"
        sx={{ width: 32, height: 32, cursor: closed ? 'pointer' : 'default' }}
      >
        <Box
          component="span"
          sx={{
            width: 10,
            height: 10,
            borderRadius: '50%',
            bgcolor: COLOURS[status],
            boxShadow: `0 0 0 3px ${COLOURS[status]}33`,
            animation: status === 'connecting' ? `${pulse} 1.2s ease-in-out infinite` : 'none',
          }}
        />
      </IconButton>
    </Tooltip>
  );
}
