// The events log's pure parts: merging pages, the 'Currently' split, grouping by day.
import type { AuditEvent } from '../../api/answers';
import { dayKey, formatDate } from '../../lib/datetime';

export { dayKey, formatDate, formatDateTime, formatTime } from '../../lib/datetime';

/**
 * The loaded pages (and the latest poll) as one list, newest first, each event once: pages are
 * offsets from the newest event, so a page asked after new events arrived repeats the previous
 * page's tail.
 */
export function mergeEvents(...lists: AuditEvent[][]): AuditEvent[] {
  const byId = new Map<number, AuditEvent>();
  for (const list of lists) for (const event of list) byId.set(event.id, event);
  return [...byId.values()].sort((a, b) => b.id - a.id);
}

/** The newest event id of a page (0 when the log is empty). */
export const newestId = (events: AuditEvent[]) => events.reduce((max, e) => Math.max(max, e.id), 0);

/** 'Currently': the events newer than the newest one seen when the log was opened; the rest is the log. */
export function splitCurrent(events: AuditEvent[], baselineId: number) {
  return {
    current: events.filter((e) => e.id > baselineId),
    logged: events.filter((e) => e.id <= baselineId),
  };
}

export interface DayGroup {
  /** YYYY-MM-DD */
  key: string;
  /** DD/MM/YYYY */
  date: string;
  /** 0 = Sunday … 6 = Saturday, for the heading's day name. */
  weekday: number;
  events: AuditEvent[];
}

/** Consecutive events of one local day in one group; the order of the list is kept (newest first). */
export function groupByDay(events: AuditEvent[]): DayGroup[] {
  const groups: DayGroup[] = [];
  for (const event of events) {
    const key = dayKey(event.timestamp);
    const last = groups[groups.length - 1];
    if (last?.key === key) last.events.push(event);
    else {
      const d = new Date(event.timestamp);
      groups.push({ key, date: formatDate(d), weekday: d.getDay(), events: [event] });
    }
  }
  return groups;
}

/** The end of the log is reached once a page comes back empty (spec 3 §4). */
export const isEndOfLog = (pages: AuditEvent[][] | undefined) =>
  Boolean(pages?.length && pages[pages.length - 1]!.length === 0);

const MAX_VALUE = 40;
const short = (value: unknown) => {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE - 1)}…` : text;
};
/**
 * An event's data in one short line: `[{ avatar: true }, { name: 'x' }]` → `avatar, name: x`.
 * Flags (true) show their name only; long values are cut.
 */
export function compactData(data: unknown): string {
  if (data === null || data === undefined) return '';
  const items = Array.isArray(data) ? data : [data];
  return items
    .flatMap((item) =>
      item && typeof item === 'object' && !Array.isArray(item)
        ? Object.entries(item as Record<string, unknown>).map(([k, v]) =>
            v === true ? k : `${k}: ${short(v)}`,
          )
        : [short(item)],
    )
    .join(', ');
}
