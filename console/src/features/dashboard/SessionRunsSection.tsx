import { Box, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { CategoryBars, COLORS, SlicesPie } from './charts';
import { ChartGrid, ChartPanel, type ChartState } from './ChartPanel';
import { ResourceLines } from './ResourceLines';
import { counters, endedRuns, groupBars, outcomeSlices, type GroupStatistics } from './shape';
import { StatCards } from './StatCards';

/**
 * Section Session Runs: counters, success versus fail, group runs (spec 3 §2.1), and what the
 * groups' runs were allocated over time with their summed quota as the limit (spec 2 "Statistics").
 */
export function SessionRunsSection({
  statistics,
  state,
  hourly,
}: {
  statistics: readonly GroupStatistics[] | undefined;
  /** The query's state; 'ready' turns 'noData' here without an ended run. */
  state: ChartState;
  /** Points per hour (ranges up to 3 days) rather than per day. */
  hourly: boolean;
}) {
  const { t } = useTranslation('dashboard');
  const c = statistics ? counters(statistics) : undefined;
  const charts: ChartState = state === 'ready' && c && endedRuns(c) === 0 ? 'noData' : state;
  const pie: ChartState = charts === 'ready' && c && outcomeSlices(c).length === 0 ? 'noData' : charts;
  const value = (n: number | undefined) => (state === 'ready' ? n : state === 'loading' ? undefined : null);
  return (
    <Box component="section" aria-labelledby="dashboard-session-runs" sx={{ display: 'grid', gap: 2 }}>
      <Typography id="dashboard-session-runs" variant="h6" component="h2">
        {t('sessionRuns.title')}
      </Typography>
      <StatCards
        label={t('sessionRuns.title')}
        cards={[
          { key: 'ended', label: t('sessionRuns.total'), value: value(c && endedRuns(c)) },
          {
            key: 'success',
            label: t('sessionRuns.success'),
            value: value(c?.success),
            color: COLORS.success,
          },
          { key: 'failed', label: t('sessionRuns.failed'), value: value(c?.failed), color: COLORS.failed },
          { key: 'stopped', label: t('sessionRuns.stopped'), value: value(c?.stopped) },
        ]}
      />
      <ChartGrid columns="minmax(0, 1fr) minmax(0, 2fr)">
        <ChartPanel title={t('sessionRuns.outcomes')} state={pie} testId="chart-outcomes">
          {c ? (
            <SlicesPie
              slices={outcomeSlices(c).map((slice) => ({
                ...slice,
                label: t(`sessionRuns.${slice.key}`),
                color: COLORS[slice.key],
              }))}
            />
          ) : null}
        </ChartPanel>
        <ChartPanel title={t('sessionRuns.groupRuns')} state={charts} testId="chart-group-runs">
          <CategoryBars
            stacked
            rows={groupBars(statistics ?? [])}
            series={(['success', 'failed', 'stopped'] as const).map((key) => ({
              key,
              label: t(`sessionRuns.${key}`),
              color: COLORS[key],
            }))}
          />
        </ChartPanel>
      </ChartGrid>
      <ResourceLines
        owners={statistics ?? []}
        limit={(group) => group.limit}
        state={state}
        title={(resource) => t('sessionRuns.allocation', { resource: t(`resources.${resource}`) })}
        testId={(resource) => `chart-groups-${resource}`}
        hourly={hourly}
      />
    </Box>
  );
}
