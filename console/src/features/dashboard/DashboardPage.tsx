import { Box, Typography } from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMe } from '../../api/queries';
import { useSessions } from '../sessions/queries';
import { stateOf, type ChartState } from './ChartPanel';
import { ClusterSection } from './ClusterSection';
import { FilterBar } from './FilterBar';
import { FreeResources } from './FreeResources';
import {
  useClusterStatistics,
  useFreeResources,
  useRunStatistics,
  useSpike,
  useStatisticOptions,
} from './queries';
import { RunComparison } from './RunComparison';
import { SessionRunsSection } from './SessionRunsSection';
import { counters, defaultGroups, defaultRange, filterProblem, isAdministrator, type Range } from './shape';
import { StatCards, type StatCard } from './StatCards';
import { useMobileNav } from '../shell/mobile-nav';

const HOURLY_UP_TO_MS = 3 * 24 * 3_600_000;

/**
 * The organization dashboard (spec 3 §2.1): the filter bar, Session Runs, and Cluster Managers
 * for administrator-type roles or the run comparison with free resources for the others.
 */
export default function DashboardPage() {
  const { t } = useTranslation('dashboard');
  const role = useMe().data?.role;
  const mobileNav = useMobileNav();
  const admin = isAdministrator(role);
  const options = useStatisticOptions();
  // null: the default (the first 7 groups of the options) until someone picks.
  const [picked, setPicked] = useState<string[] | null>(null);
  const [range, setRange] = useState<Range>(() => defaultRange(new Date()));
  const groups = picked ?? defaultGroups(options.data ?? []);
  const problem = filterProblem(groups, range);
  const ready = options.isSuccess && problem === null;

  const runs = useRunStatistics(groups, range, ready);
  const clusters = useClusterStatistics(groups, range, ready && admin);
  const spike = useSpike(admin);
  const free = useFreeResources(!admin && role !== undefined);
  const sessions = useSessions();

  // Until the options arrive the filter is not known: their state, not "no filter".
  const filtered = (query: Parameters<typeof stateOf>[0]): ChartState =>
    options.isError ? 'error' : options.isPending ? 'loading' : stateOf(query, { blocked: problem !== null });
  const runsState = filtered(runs);
  const c = runs.data && runsState === 'ready' ? counters(runs.data) : undefined;
  const now = (n: number | undefined) => (runsState === 'loading' ? undefined : n === undefined ? null : n);
  const activeSessions = sessions.isPending
    ? undefined
    : sessions.data
      ? sessions.data.filter((session) => session.running).length
      : null;
  const cards: StatCard[] = admin
    ? [
        { key: 'scheduled', label: t('cards.scheduledRuns'), value: now(c?.scheduled) },
        { key: 'active-runs', label: t('cards.activeRuns'), value: now(c?.running) },
        { key: 'active-groups', label: t('cards.activeGroups'), value: now(c?.activeGroups) },
      ]
    : [
        { key: 'active-sessions', label: t('cards.activeSessions'), value: activeSessions },
        { key: 'active-runs', label: t('cards.activeRuns'), value: now(c?.running) },
        { key: 'scheduled', label: t('cards.scheduledRuns'), value: now(c?.scheduled) },
      ];

  const hourly = Date.parse(range.end) - Date.parse(range.start) <= HOURLY_UP_TO_MS;
  const reset = () => {
    setPicked(null);
    setRange(defaultRange(new Date()));
  };

  return (
    <Box sx={{ p: { xs: 1.5, sm: 3 }, display: 'grid', gap: 3, maxWidth: 1600, mx: 'auto', minWidth: 0 }}>
      <Typography variant="h4" component="h1" sx={{ fontSize: { xs: '1.6rem', sm: '2.125rem' } }}>
        {t('title')}
      </Typography>
      <FilterBar
        hidden={mobileNav.open}
        options={options.data ?? []}
        groups={groups}
        range={range}
        problem={options.isSuccess ? problem : null}
        onGroups={setPicked}
        onRange={setRange}
        onReset={reset}
      />
      <StatCards cards={cards} label={t('title')} />
      <SessionRunsSection statistics={runs.data} state={runsState} hourly={hourly} />
      {admin ? (
        <ClusterSection
          spike={spike.data}
          spikeState={stateOf(spike)}
          clusters={clusters.data}
          clustersState={filtered(clusters)}
          hourly={hourly}
        />
      ) : (
        <>
          <RunComparison sessions={sessions.data ?? []} />
          <FreeResources free={free.data} state={stateOf(free)} />
        </>
      )}
    </Box>
  );
}
