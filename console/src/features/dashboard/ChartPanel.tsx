import { Box, CircularProgress, Paper, Typography } from '@mui/material';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

/** What a chart shows instead of itself (spec 3 §8): never an error page. */
export type ChartState = 'loading' | 'error' | 'noData' | 'noFilter' | 'noRuns' | 'ready';

export const CHART_HEIGHT = 260;

/** The state of a chart fed by one query (and a filter that may not be complete). */
export function stateOf(
  query: { isPending: boolean; isError: boolean; fetchStatus?: string },
  { blocked = false, empty = false }: { blocked?: boolean; empty?: boolean } = {},
): ChartState {
  if (blocked) return 'noFilter';
  if (query.isError) return 'error';
  if (query.isPending) return 'loading';
  return empty ? 'noData' : 'ready';
}

/** A titled panel holding a chart, or its loading, error or no-data message. */
export function ChartPanel({
  title,
  state,
  testId,
  children,
  height = CHART_HEIGHT,
}: {
  title: string;
  state: ChartState;
  testId: string;
  children: ReactNode;
  height?: number;
}) {
  const { t } = useTranslation('dashboard');
  return (
    <Paper
      variant="outlined"
      component="section"
      aria-label={title}
      data-testid={testId}
      data-state={state}
      sx={{ p: 2, minWidth: 0, display: 'flex', flexDirection: 'column', gap: 1 }}
    >
      <Typography variant="subtitle1" component="h3" sx={{ fontWeight: 600 }}>
        {title}
      </Typography>
      {state === 'ready' ? (
        children
      ) : (
        <Box
          role="status"
          sx={{
            minHeight: height,
            display: 'flex',
            flexDirection: 'column',
            alignItems: 'center',
            justifyContent: 'center',
            textAlign: 'center',
            gap: 1,
            px: 2,
            color: 'text.secondary',
          }}
        >
          {state === 'loading' ? (
            <>
              <CircularProgress size={32} aria-label={t('states.loading')} />
              <Typography variant="body2">{t('states.loading')}</Typography>
            </>
          ) : (
            <>
              <Typography variant="body1" sx={{ color: state === 'error' ? 'error.light' : 'text.primary' }}>
                {t(`states.${state}`)}
              </Typography>
              <Typography variant="body2">{t(`states.${state}Hint`)}</Typography>
            </>
          )}
        </Box>
      )}
    </Paper>
  );
}

/** Three panels of the same width. */
export const THIRDS = 'repeat(3, minmax(0, 1fr))';

/** Chart panels side by side from `from` up, as the grid template `columns` says; stacked below it. */
export function ChartGrid({
  columns,
  from = 'md',
  children,
}: {
  columns: string;
  from?: 'md' | 'lg';
  children: ReactNode;
}) {
  return (
    <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: 'minmax(0, 1fr)', [from]: columns } }}>
      {children}
    </Box>
  );
}
