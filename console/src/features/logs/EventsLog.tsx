import ExpandMoreIcon from '@mui/icons-material/ExpandMore';
import {
  Alert,
  Box,
  Button,
  ButtonBase,
  Chip,
  CircularProgress,
  Collapse,
  Divider,
  Paper,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  Typography,
  useMediaQuery,
} from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { AuditEvent } from '../../api/answers';
import { MOBILE_QUERY } from '../../app/theme';
import { compactData, formatDateTime, formatTime, type DayGroup } from './events-log';

export interface EventsLogProps {
  /** Events that arrived after the log was opened, newest first. */
  current: AuditEvent[];
  /** When the log was opened (the 'Currently' block counts from there); null while loading. */
  since: Date | null;
  /** The loaded log grouped by local day, newest first. */
  days: DayGroup[];
  /** Today's day key (YYYY-MM-DD): that day starts expanded. */
  today: string;
  /** The first page is on its way. */
  loading: boolean;
  /** The last request failed (its message). */
  error?: string;
  /** A page came back empty: nothing older exists. */
  ended: boolean;
  loadingOlder: boolean;
  onLoadOlder: () => void;
  onRetry: () => void;
}

/** The events log (spec 3 §2.2): a Currently block, per-day tables, Load older events, End Log. */
export function EventsLog(props: EventsLogProps) {
  const { t } = useTranslation('logs');
  const { current, since, days, today, loading, error, ended, loadingOlder, onLoadOlder, onRetry } = props;
  return (
    <Box sx={{ p: { xs: 1.5, sm: 3 }, maxWidth: 1200, mx: 'auto' }}>
      <Typography variant="h5" component="h1" sx={{ mb: 2 }}>
        {t('title')}
      </Typography>

      <Paper
        variant="outlined"
        sx={{ p: { xs: 1.5, sm: 2 }, mb: 3 }}
        component="section"
        aria-labelledby="currently"
      >
        <Typography id="currently" variant="h6" component="h2" sx={{ mb: 1 }}>
          {t('currently')}
        </Typography>
        {current.length > 0 ? (
          <EventRows events={current} withDate testId="current-events" />
        ) : (
          <Typography color="text.secondary" variant="body2" data-testid="currently-empty">
            {since ? t('nothingNewSince', { time: formatTime(since) }) : t('loading')}
          </Typography>
        )}
      </Paper>

      {loading && (
        <Box sx={{ display: 'flex', justifyContent: 'center', py: 4 }}>
          <CircularProgress aria-label={t('loading')} />
        </Box>
      )}
      {error !== undefined && (
        <Alert
          severity="error"
          sx={{ mb: 2 }}
          action={
            <Button color="inherit" size="small" onClick={onRetry}>
              {t('retry')}
            </Button>
          }
        >
          {t('loadFailed')} {error}
        </Alert>
      )}
      {!loading && days.length === 0 && ended && (
        <Typography color="text.secondary" sx={{ mb: 2 }}>
          {t('emptyLog')}
        </Typography>
      )}

      <Stack spacing={1.5}>
        {days.map((day) => (
          <DaySection key={day.key} day={day} initiallyOpen={day.key === today} />
        ))}
      </Stack>

      {!loading && (days.length > 0 || ended) && (
        <Box sx={{ mt: 3, mb: 2, display: 'flex', justifyContent: 'center' }}>
          {ended ? (
            <Divider sx={{ width: '100%', color: 'text.secondary' }} data-testid="end-log">
              {t('endLog')}
            </Divider>
          ) : (
            <Button
              variant="outlined"
              onClick={onLoadOlder}
              disabled={loadingOlder}
              startIcon={loadingOlder ? <CircularProgress size={16} color="inherit" /> : undefined}
            >
              {t('loadOlder')}
            </Button>
          )}
        </Box>
      )}
    </Box>
  );
}

function DaySection({ day, initiallyOpen }: { day: DayGroup; initiallyOpen: boolean }) {
  const { t } = useTranslation('logs');
  const [open, setOpen] = useState(initiallyOpen);
  const heading = `${t(`weekdays.${day.weekday}`)} ${day.date}`;
  const panel = `day-${day.key}`;
  return (
    <Paper variant="outlined" component="section" data-testid="day" data-day={day.key}>
      <ButtonBase
        onClick={() => setOpen((o) => !o)}
        aria-expanded={open}
        aria-controls={panel}
        sx={{ width: '100%', justifyContent: 'flex-start', gap: 1, px: 2, py: 1.25, borderRadius: 1 }}
      >
        <ExpandMoreIcon
          fontSize="small"
          sx={{ transform: open ? 'none' : 'rotate(-90deg)', transition: 'transform 150ms' }}
        />
        <Typography component="h2" variant="subtitle1" sx={{ fontWeight: 600 }}>
          {heading}
        </Typography>
        <Chip size="small" label={t('eventsCount', { count: day.events.length })} sx={{ ml: 'auto' }} />
      </ButtonBase>
      <Collapse in={open} id={panel} unmountOnExit>
        <Divider />
        <EventRows events={day.events} />
      </Collapse>
    </Paper>
  );
}

/** The events as a compact table, or as stacked lines on a phone. */
function EventRows({
  events,
  withDate,
  testId,
}: {
  events: AuditEvent[];
  withDate?: boolean;
  testId?: string;
}) {
  const { t } = useTranslation('logs');
  const mobile = useMediaQuery(MOBILE_QUERY);
  const when = (e: AuditEvent) => (withDate ? formatDateTime(e.timestamp) : formatTime(e.timestamp));
  const kind = (e: AuditEvent) => t(`kinds.${e.kind}`, { defaultValue: e.kind });
  const action = (e: AuditEvent) => t(`actions.${e.action}`, { defaultValue: e.action });

  if (mobile)
    return (
      <Stack divider={<Divider />} data-testid={testId}>
        {events.map((e) => (
          <Box key={e.id} sx={{ px: 1.5, py: 1 }} data-testid="event">
            <Typography variant="body2" sx={{ display: 'flex', gap: 1, flexWrap: 'wrap' }}>
              <Box component="span" sx={{ fontVariantNumeric: 'tabular-nums', color: 'text.secondary' }}>
                {when(e)}
              </Box>
              <Box component="span" sx={{ fontWeight: 600 }}>
                {kind(e)} · {action(e)}
              </Box>
            </Typography>
            <Typography variant="body2" sx={{ wordBreak: 'break-word' }}>
              {e.subject}
              {compactData(e.data) && (
                <Box component="span" sx={{ color: 'text.secondary' }}>
                  {' '}
                  ({compactData(e.data)})
                </Box>
              )}
            </Typography>
            <Typography variant="caption" color="text.secondary">
              {[e.user_name, e.organization_name].filter(Boolean).join(' · ')}
            </Typography>
          </Box>
        ))}
      </Stack>
    );

  const cell = { py: 0.5, whiteSpace: 'nowrap' } as const;
  return (
    <TableContainer data-testid={testId}>
      <Table size="small">
        <TableHead>
          <TableRow>
            <TableCell sx={cell}>{t('columns.time')}</TableCell>
            <TableCell sx={cell}>{t('columns.organization')}</TableCell>
            <TableCell sx={cell}>{t('columns.user')}</TableCell>
            <TableCell sx={cell}>{t('columns.kind')}</TableCell>
            <TableCell sx={cell}>{t('columns.action')}</TableCell>
            <TableCell sx={cell}>{t('columns.subject')}</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {events.map((e) => (
            <TableRow key={e.id} hover data-testid="event">
              <TableCell sx={{ ...cell, fontVariantNumeric: 'tabular-nums' }}>{when(e)}</TableCell>
              <TableCell sx={cell}>{e.organization_name || '—'}</TableCell>
              <TableCell sx={cell}>{e.user_name}</TableCell>
              <TableCell sx={cell}>{kind(e)}</TableCell>
              <TableCell sx={cell}>{action(e)}</TableCell>
              <TableCell sx={{ py: 0.5, wordBreak: 'break-word', minWidth: 200 }}>
                {e.subject}
                {compactData(e.data) && (
                  <Typography component="span" variant="body2" color="text.secondary">
                    {' '}
                    ({compactData(e.data)})
                  </Typography>
                )}
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}
