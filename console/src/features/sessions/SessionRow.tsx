import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import DeleteIcon from '@mui/icons-material/Delete';
import EditIcon from '@mui/icons-material/Edit';
import ListAltIcon from '@mui/icons-material/ListAlt';
import PlayArrowIcon from '@mui/icons-material/PlayArrow';
import {
  Badge,
  Box,
  Checkbox,
  CircularProgress,
  IconButton,
  TableCell,
  TableRow,
  Tooltip,
  Typography,
} from '@mui/material';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink } from 'react-router';
import { ActionsCell } from '../../components/PagedTable';
import { formatDateTime } from '../../lib/datetime';
import { sessionState, type SessionState } from './query';
import type { SessionItem } from './types';

/** The name's colour (spec 2 §2): grey no runs, red error, orange general error, blue running, green otherwise. */
export const STATE_COLOUR: Record<SessionState, string> = {
  none: '#9e9e9e',
  error: '#f44336',
  general: '#ff9800',
  running: '#42a5f5',
  ok: '#66bb6a',
};

export interface SessionRowActions {
  onSelect: (uuid: string) => void;
  onRuns: (session: SessionItem) => void;
  onStart: (session: SessionItem) => void;
  onClone: (session: SessionItem) => void;
  onDelete: (session: SessionItem) => void;
}

export function SessionRow({
  session,
  selected,
  starting,
  startLocked,
  compact,
  actions,
}: {
  session: SessionItem;
  selected: boolean;
  starting: boolean;
  startLocked: boolean;
  compact: boolean;
  actions: SessionRowActions;
}) {
  const { t } = useTranslation('sessions');
  const state = sessionState(session);
  const active = session.active ?? Boolean(session.next_run);
  return (
    <TableRow hover selected={selected} data-testid="session-row">
      <TableCell padding="checkbox">
        <Checkbox
          checked={selected}
          onChange={() => actions.onSelect(session.uuid)}
          slotProps={{ input: { 'aria-label': t('select', { name: session.name }) } }}
        />
      </TableCell>
      <TableCell>
        <Tooltip title={t(`state.${state}`)}>
          <Typography
            variant="body2"
            data-state={state}
            sx={{ color: STATE_COLOUR[state], fontWeight: 600, wordBreak: 'break-word' }}
          >
            {session.name}
          </Typography>
        </Tooltip>
      </TableCell>
      <TableCell>
        {session.workflow ? (
          session.workflow
        ) : (
          <Typography variant="body2" color="text.secondary">
            {t('noWorkflow')}
          </Typography>
        )}
      </TableCell>
      {!compact && (
        <TableCell>
          {active ? (
            <Tooltip
              title={
                session.next_run ? t('nextRun', { date: formatDateTime(session.next_run) }) : t('noNextRun')
              }
            >
              <Typography variant="body2" color="success.main" component="span">
                {t('scheduleActive')}
              </Typography>
            </Tooltip>
          ) : (
            <Typography variant="body2" color="text.secondary" component="span">
              {t('scheduleCompleted')}
            </Typography>
          )}
        </TableCell>
      )}
      {!compact && <TableCell>{formatDateTime(session.creation_time)}</TableCell>}
      <ActionsCell>
        <Box sx={{ display: 'inline-flex' }}>
          <Tooltip title={t('showRuns')}>
            <IconButton size="small" aria-label={t('showRuns')} onClick={() => actions.onRuns(session)}>
              <Badge badgeContent={session.run_count} color="primary" max={999} showZero>
                <ListAltIcon fontSize="small" />
              </Badge>
            </IconButton>
          </Tooltip>
          <Tooltip title={t('edit')}>
            <IconButton
              size="small"
              aria-label={t('edit')}
              component={RouterLink}
              to={`/${session.type}/${session.uuid}`}
            >
              <EditIcon fontSize="small" />
            </IconButton>
          </Tooltip>
          <Tooltip title={t('startNow')}>
            <span>
              <IconButton
                size="small"
                aria-label={t('startNow')}
                disabled={session.running || starting || startLocked}
                onClick={() => actions.onStart(session)}
              >
                {starting ? <CircularProgress size={18} /> : <PlayArrowIcon fontSize="small" />}
              </IconButton>
            </span>
          </Tooltip>
          <Tooltip title={t('clone')}>
            <IconButton size="small" aria-label={t('clone')} onClick={() => actions.onClone(session)}>
              <ContentCopyIcon fontSize="small" />
            </IconButton>
          </Tooltip>
          <Tooltip title={t('delete')}>
            <IconButton size="small" aria-label={t('delete')} onClick={() => actions.onDelete(session)}>
              <DeleteIcon fontSize="small" />
            </IconButton>
          </Tooltip>
        </Box>
      </ActionsCell>
    </TableRow>
  );
}
