// Pure helpers of the organization dashboard (spec 3 §2.1, §9; spec 2 "Statistics"): the default
// filter, its validation, the counters and the chart series in display units.
import type { Result } from '../../api/answers';
import type { Role } from '../../api/answers';

export type GroupStatistics = Result<'postStatisticRuns'>[number];
export type ClusterStatistics = Result<'postStatisticClusters'>[number];
export type Spike = Result<'getStatisticSpike'>;
export type FreeResources = Result<'getStatisticSpikeFree'>[number];
export type RunStatistics = Result<'getStatisticRunsRun'>;
export type Option = Result<'getStatisticOptions'>[number];

export type Resource = 'cpu' | 'memory' | 'disk';
export const RESOURCES: readonly Resource[] = ['cpu', 'memory', 'disk'];

/** At most 7 groups are selected by default (spec 3 §9). */
export const DEFAULT_GROUPS = 7;
/** A usage pie turns red at 90 % or more allocated (spec 3 §9). */
export const RED_AT = 0.9;

/** Administrator-type roles (spec 3 §1) see the Cluster Managers section; the others the run comparison. */
export const isAdministrator = (role: Role | null | undefined) =>
  role === 'admin' || role === 'organization_admin';

export interface Range {
  /** datetime-local values (local time, minutes): what the inputs show. */
  start: string;
  end: string;
}

const pad = (n: number) => String(n).padStart(2, '0');
/** A Date as a datetime-local input value (local time, to the minute). */
export const toLocalInput = (date: Date) =>
  `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;

/** One month back to the next hour (spec 3 §9). */
export function defaultRange(now: Date): Range {
  const end = new Date(now);
  end.setMinutes(0, 0, 0);
  end.setHours(end.getHours() + 1);
  const start = new Date(end);
  start.setMonth(start.getMonth() - 1);
  return { start: toLocalInput(start), end: toLocalInput(end) };
}

/** The first 7 groups the options offer. */
export const defaultGroups = (options: readonly Option[]) =>
  options.slice(0, DEFAULT_GROUPS).map((option) => option.id);

export type FilterProblem = 'noGroups' | 'invalidDate' | 'startAfterEnd';

/** What keeps the filter from being asked (none: null). Start after end is invalid (spec 2 §5). */
export function filterProblem(groups: readonly string[], range: Range): FilterProblem | null {
  const start = Date.parse(range.start);
  const end = Date.parse(range.end);
  if (Number.isNaN(start) || Number.isNaN(end)) return 'invalidDate';
  if (start > end) return 'startAfterEnd';
  if (groups.length === 0) return 'noGroups';
  return null;
}

/** The body of POST /statistic/runs and /statistic/clusters. */
export const rangeBody = (groups: readonly string[], range: Range) => ({
  groups: [...groups],
  start_date: new Date(range.start).toISOString(),
  end_date: new Date(range.end).toISOString(),
});

export interface Counters {
  scheduled: number;
  running: number;
  success: number;
  failed: number;
  stopped: number;
  /** Groups with a run scheduled or running now. */
  activeGroups: number;
}

export function counters(groups: readonly GroupStatistics[]): Counters {
  const sum = (pick: (g: GroupStatistics) => number) => groups.reduce((total, g) => total + pick(g), 0);
  return {
    scheduled: sum((g) => g.scheduled),
    running: sum((g) => g.running),
    success: sum((g) => g.success),
    failed: sum((g) => g.failed),
    stopped: sum((g) => g.stopped),
    activeGroups: groups.filter((g) => g.scheduled + g.running > 0).length,
  };
}

/** Runs ended in the range: the charts have nothing to show without one. */
export const endedRuns = (c: Pick<Counters, 'success' | 'failed' | 'stopped'>) =>
  c.success + c.failed + c.stopped;

/** The success-versus-fail pie: slices with a value only. */
export const outcomeSlices = (c: Counters) =>
  (
    [
      { key: 'success', value: c.success },
      { key: 'failed', value: c.failed },
    ] as const
  ).filter((slice) => slice.value > 0);

/** The group runs bar chart: one bar group per group with an ended run. */
export const groupBars = (groups: readonly GroupStatistics[]) =>
  groups
    .filter((g) => endedRuns(g) > 0)
    .map((g) => ({ name: g.name, success: g.success, failed: g.failed, stopped: g.stopped }));

/** Display units (spec 3 §9): CPU millicores / 1000 (cores), memory and disk MB / 1024 (GB). */
export function toUnits(resource: Resource, value: number): number {
  const divided = resource === 'cpu' ? value / 1000 : value / 1024;
  return Math.round(divided * 100) / 100;
}

/** Run time in minutes (spec 3 §9). */
export const minutes = (ms: number) => Math.round((ms / 60_000) * 100) / 100;

export interface Usage {
  used: number;
  free: number;
  /** 0..1 (more when over capacity); 0 without capacity. */
  ratio: number;
  red: boolean;
}

/** A usage pie: allocated versus capacity, red at 90 % or more (spec 3 §9). */
export function usage(used: number, capacity: number): Usage {
  const ratio = capacity > 0 ? used / capacity : used > 0 ? 1 : 0;
  return { used, free: Math.max(capacity - used, 0), ratio, red: ratio >= RED_AT };
}

export interface SeriesRow {
  /** Epoch ms of the point. */
  x: number;
  [series: string]: number;
}

/**
 * Merges the per-item series of one resource into chart rows keyed by time, one column per
 * item id, in display units; rows sorted by time.
 */
export function mergeSeries(
  items: readonly {
    id: string;
    cpu: { x: string; y: number }[];
    memory: { x: string; y: number }[];
    disk: { x: string; y: number }[];
  }[],
  resource: Resource,
): SeriesRow[] {
  const rows = new Map<number, SeriesRow>();
  for (const item of items)
    for (const point of item[resource]) {
      const x = Date.parse(point.x);
      const row = rows.get(x) ?? { x };
      row[item.id] = toUnits(resource, point.y);
      rows.set(x, row);
    }
  return [...rows.values()].sort((a, b) => a.x - b.x);
}

/** The limit line of a resource: the summed capacity (clusters) or quota (groups), in display units. */
/**
 * A value axis from 0 that ends on a round number above the highest value (with a tenth of
 * headroom, so a limit line never sits on the frame) in 4 or 5 steps of 1, 2, 2.5 or 5 × 10ⁿ: the
 * ticks read 0, 20, 40, 60, 80 rather than ending on 75.38.
 */
export function valueAxis(top: number, steps = 4): { max: number; ticks: number[] } {
  const wanted = Math.max(0, top) * 1.1;
  if (!Number.isFinite(wanted) || wanted === 0) return valueAxis(0.9, steps);
  const power = 10 ** Math.floor(Math.log10(wanted / steps));
  // The finest round step that covers the top in at most one step more than asked.
  const step = [1, 2, 2.5, 5, 10, 20]
    .map((m) => m * power)
    .find((s) => Math.ceil(wanted / s - 1e-9) <= steps + 1)!;
  const count = Math.ceil(wanted / step - 1e-9);
  const ticks = Array.from({ length: count + 1 }, (_, i) => Number((i * step).toPrecision(12)));
  return { max: ticks[count]!, ticks };
}

export const limitOf = (resource: Resource, capacities: readonly Record<Resource, number>[]) =>
  toUnits(
    resource,
    capacities.reduce((total, c) => total + c[resource], 0),
  );

/** The run comparison's typed value 'session~run'. */
export interface RunQuery {
  session: string;
  run: string | null;
}
export const SEPARATOR = '~';
/** A run in the picker: its short id, the first 8 characters of its uuid (runs share their session's name). */
export const runKey = (uuid: string) => uuid.slice(0, 8);

export function parseRunQuery(text: string): RunQuery {
  const at = text.indexOf(SEPARATOR);
  return at < 0 ? { session: text, run: null } : { session: text.slice(0, at), run: text.slice(at + 1) };
}

/** Longest common prefix of the names (case kept from the first). */
function commonPrefix(names: readonly string[]): string {
  if (names.length === 0) return '';
  let prefix = names[0]!;
  for (const name of names.slice(1))
    while (!name.toLowerCase().startsWith(prefix.toLowerCase())) prefix = prefix.slice(0, -1);
  return prefix;
}

const matching = (names: readonly string[], typed: string) =>
  names.filter((name) => name.toLowerCase().startsWith(typed.toLowerCase()));

/**
 * Completion on Enter or Tab: before the '~', the session name (with '~' once it is the only
 * match); after it, the run name. Answers the completed text (unchanged when nothing matches).
 */
export function completeRunQuery(text: string, sessions: readonly string[], runs: readonly string[]): string {
  const { session, run } = parseRunQuery(text);
  if (run === null) {
    const found = matching(sessions, session);
    if (found.length === 0) return text;
    const exact = found.find((name) => name.toLowerCase() === session.toLowerCase());
    if (found.length === 1) return `${found[0]}${SEPARATOR}`;
    const prefix = commonPrefix(found);
    return prefix.length > session.length ? prefix : exact ? `${exact}${SEPARATOR}` : text;
  }
  const found = matching(runs, run);
  if (found.length === 0) return text;
  if (found.length === 1) return `${session}${SEPARATOR}${found[0]}`;
  const prefix = commonPrefix(found);
  return prefix.length > run.length ? `${session}${SEPARATOR}${prefix}` : text;
}
