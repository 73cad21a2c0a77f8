import DeleteIcon from '@mui/icons-material/Delete';
import PauseIcon from '@mui/icons-material/Pause';
import PlayArrowIcon from '@mui/icons-material/PlayArrow';
import RefreshIcon from '@mui/icons-material/Refresh';
import ReplayIcon from '@mui/icons-material/Replay';
import RestartAltIcon from '@mui/icons-material/RestartAlt';
import StopIcon from '@mui/icons-material/Stop';
import VisibilityIcon from '@mui/icons-material/Visibility';
import {
  Alert,
  Box,
  Button,
  Chip,
  CircularProgress,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  IconButton,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  Tooltip,
  Typography,
  useMediaQuery,
} from '@mui/material';
import type { ReactElement } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { MOBILE_QUERY } from '../../app/theme';
import { formatRunDate } from '../runs/format';
import {
  ACTION_OF,
  allowedButtons,
  colourOf,
  RETRY_LOCK_MS,
  RUN_BUTTONS,
  type RunButton,
} from '../runs/status';
import { toastSessionFailure, toastSessionSuccess } from './outcomes';
import { useRunAction, useSessionRuns } from './queries';
import type { Run, SessionItem } from './types';
import { useTimedLock } from './useTimedLock';

const ICONS: Record<RunButton, ReactElement> = {
  view: <VisibilityIcon fontSize="small" />,
  start: <PlayArrowIcon fontSize="small" />,
  pause: <PauseIcon fontSize="small" />,
  stop: <StopIcon fontSize="small" />,
  retry: <ReplayIcon fontSize="small" />,
  restart: <RestartAltIcon fontSize="small" />,
  delete: <DeleteIcon fontSize="small" />,
};
const LOCKED_AFTER_CLICK: readonly RunButton[] = ['retry', 'restart'];

export const StatusChip = ({ status }: { status: string }) => (
  <Chip
    size="small"
    label={status}
    sx={{ bgcolor: colourOf(status), color: '#111', fontWeight: 600, fontSize: 11 }}
  />
);

/** The runs of a session (spec 2 §2 'Runs modal'). */
export function RunsModal({ session, onClose }: { session: SessionItem | null; onClose: () => void }) {
  const { t } = useTranslation('sessions');
  const compact = useMediaQuery(MOBILE_QUERY);
  const navigate = useNavigate();
  const runs = useSessionRuns(session?.type ?? 'schedule', session?.uuid ?? '', Boolean(session));
  const action = useRunAction();
  const { lock, isLocked } = useTimedLock(RETRY_LOCK_MS);

  const press = (run: Run, button: RunButton) => {
    if (!session) return;
    if (button === 'view') {
      navigate(`/dashboard/session/${session.uuid}/${run.uuid}`);
      return;
    }
    if (LOCKED_AFTER_CLICK.includes(button)) lock(`${run.uuid}:${button}`);
    action.mutate(
      { run: run.uuid, session: session.uuid, action: ACTION_OF[button] },
      { onSuccess: () => toastSessionSuccess('run'), onError: toastSessionFailure },
    );
  };

  const pending = action.isPending ? action.variables : undefined;
  return (
    <Dialog open={session !== null} onClose={onClose} maxWidth="md" fullWidth fullScreen={compact}>
      <DialogTitle sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
        <Box sx={{ flex: 1, minWidth: 0 }}>
          {t('runsTitle', { name: session?.name ?? '' })}
          <Typography component="span" color="text.secondary" sx={{ ml: 1 }}>
            ({runs.data?.length ?? session?.run_count ?? 0})
          </Typography>
        </Box>
        <Tooltip title={t('refresh')}>
          <span>
            <IconButton
              aria-label={t('refresh')}
              onClick={() => void runs.refetch()}
              disabled={runs.isFetching}
            >
              {runs.isFetching ? <CircularProgress size={20} /> : <RefreshIcon />}
            </IconButton>
          </span>
        </Tooltip>
      </DialogTitle>
      <DialogContent dividers>
        {runs.isError && !runs.data ? (
          <Alert severity="error">
            {t('runsLoadFailed')}: {runs.error.message}
          </Alert>
        ) : !runs.data ? (
          <Box sx={{ display: 'grid', placeItems: 'center', p: 4 }}>
            <CircularProgress aria-label={t('loading')} />
          </Box>
        ) : runs.data.length === 0 ? (
          <Typography color="text.secondary" sx={{ p: 2, textAlign: 'center' }}>
            {t('noRuns')}
          </Typography>
        ) : (
          <TableContainer>
            <Table size="small" aria-label={t('runsTable')}>
              <TableHead>
                <TableRow>
                  <TableCell>{t('runColumns.status')}</TableCell>
                  <TableCell>{t('runColumns.start')}</TableCell>
                  <TableCell>{t('runColumns.end')}</TableCell>
                  {!compact && <TableCell>{t('runColumns.group')}</TableCell>}
                  <TableCell align="right">{t('columns.actions')}</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {runs.data.map((run) => {
                  const allowed = allowedButtons(run.status);
                  return (
                    <TableRow key={run.uuid} data-testid="run-row">
                      <TableCell>
                        <StatusChip status={run.status} />
                      </TableCell>
                      <TableCell>{formatRunDate(run.start)}</TableCell>
                      <TableCell>{formatRunDate(run.stop)}</TableCell>
                      {!compact && <TableCell>{run.group_name || run.group || '-'}</TableCell>}
                      <TableCell align="right" sx={{ whiteSpace: compact ? 'normal' : 'nowrap' }}>
                        {RUN_BUTTONS.map((button) => {
                          const busy = pending?.run === run.uuid;
                          const disabled =
                            !allowed.has(button) ||
                            (button !== 'view' && busy) ||
                            isLocked(`${run.uuid}:${button}`);
                          return (
                            <Tooltip key={button} title={t(`runButtons.${button}`)}>
                              <span>
                                <IconButton
                                  size="small"
                                  aria-label={t(`runButtons.${button}`)}
                                  disabled={disabled}
                                  color={button === 'delete' ? 'error' : 'default'}
                                  onClick={() => press(run, button)}
                                >
                                  {ICONS[button]}
                                </IconButton>
                              </span>
                            </Tooltip>
                          );
                        })}
                      </TableCell>
                    </TableRow>
                  );
                })}
              </TableBody>
            </Table>
          </TableContainer>
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('close', { ns: 'common' })}</Button>
      </DialogActions>
    </Dialog>
  );
}
