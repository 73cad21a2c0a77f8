// The dashboard's statistics calls (spec 3 §7) as react-query hooks with structured keys.
import { useQueries, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { rangeBody, type Range } from './shape';

export const dashboardKeys = {
  all: ['dashboard'] as const,
  options: ['dashboard', 'options'] as const,
  runs: (groups: readonly string[], range: Range) => ['dashboard', 'runs', [...groups], range] as const,
  clusters: (groups: readonly string[], range: Range) =>
    ['dashboard', 'clusters', [...groups], range] as const,
  spike: ['dashboard', 'spike'] as const,
  free: ['dashboard', 'free'] as const,
  run: (run: string) => ['dashboard', 'run', run] as const,
};

/** The groups the filter offers. */
export function useStatisticOptions() {
  return useQuery({
    queryKey: dashboardKeys.options,
    queryFn: () => unwrap(api.GET('/statistic/options')),
    staleTime: 60_000,
  });
}

/** Run outcomes and allocation series of the groups; asked only for a valid filter. */
export function useRunStatistics(groups: readonly string[], range: Range, enabled: boolean) {
  return useQuery({
    queryKey: dashboardKeys.runs(groups, range),
    queryFn: () => unwrap(api.POST('/statistic/runs', { body: rangeBody(groups, range) })),
    enabled,
  });
}

/** Cluster managers' allocation (administrator-type roles). */
export function useClusterStatistics(groups: readonly string[], range: Range, enabled: boolean) {
  return useQuery({
    queryKey: dashboardKeys.clusters(groups, range),
    queryFn: () => unwrap(api.POST('/statistic/clusters', { body: rangeBody(groups, range) })),
    enabled,
  });
}

/** Peaks of the last 24 hours (administrator-type roles). */
export function useSpike(enabled: boolean) {
  return useQuery({
    queryKey: dashboardKeys.spike,
    queryFn: () => unwrap(api.GET('/statistic/spike')),
    enabled,
  });
}

/** The caller's free resources per group (other roles). */
export function useFreeResources(enabled: boolean) {
  return useQuery({
    queryKey: dashboardKeys.free,
    queryFn: () => unwrap(api.GET('/statistic/spike/free')),
    enabled,
  });
}

/** The statistics of the compared runs, one query per run. */
export function useRunsStatistics(runs: readonly string[]) {
  return useQueries({
    queries: runs.map((run) => ({
      queryKey: dashboardKeys.run(run),
      queryFn: () => unwrap(api.GET('/statistic/runs/{run}', { params: { path: { run } } })),
      staleTime: Infinity,
    })),
  });
}
