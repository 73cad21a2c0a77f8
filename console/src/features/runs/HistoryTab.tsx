import { Box, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import type { HistoryEntry, Run } from '../sessions/types';
import { formatRunDate } from './format';

/** The run's history and its sandboxes', oldest first (the timeline of spec 2 §2). */
export function timelineOf(run: Run): HistoryEntry[] {
  const all = [
    ...(run.history ?? []),
    ...(run.sandbox_statuses ?? []).flatMap((s) =>
      (s.history ?? []).map((h) => ({ ...h, sandbox: h.sandbox || s.name })),
    ),
  ];
  const seen = new Set<string>();
  return all
    .filter((h) => {
      const key = `${h.time}|${h.action}|${h.sandbox ?? ''}|${h.username ?? ''}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .sort((a, b) => a.time.localeCompare(b.time));
}

export function HistoryTab({ run }: { run: Run }) {
  const { t } = useTranslation('runs');
  const entries = timelineOf(run);
  if (entries.length === 0)
    return (
      <Typography color="text.secondary" sx={{ p: 2 }}>
        {t('noHistory')}
      </Typography>
    );
  return (
    <Box component="ol" aria-label={t('history')} sx={{ listStyle: 'none', m: 0, p: 0, pl: 1 }}>
      {entries.map((h, i) => (
        <Box
          component="li"
          key={i}
          sx={{
            display: 'flex',
            gap: 1.5,
            pb: 1.5,
            position: 'relative',
            borderLeft: 2,
            borderColor: 'divider',
            pl: 2,
          }}
        >
          <Box
            sx={{
              position: 'absolute',
              left: -6,
              top: 4,
              width: 10,
              height: 10,
              borderRadius: '50%',
              bgcolor: 'primary.main',
            }}
          />
          <Box>
            <Typography variant="caption" color="text.secondary">
              {formatRunDate(h.time)}
            </Typography>
            <Typography variant="body2">
              <strong>{h.sandbox || h.username || t('system')}</strong> · {h.action}
            </Typography>
          </Box>
        </Box>
      ))}
    </Box>
  );
}
