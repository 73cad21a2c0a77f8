// Session schedules → Argo CronWorkflow schedules. Product semantics: a periodic schedule runs at
// start + k × value × unit (k = 0, 1, …) and never after end; a one-off schedule runs once at start.
// Cron expressions are evaluated in UTC. Where cron cannot express "every N units from the anchor",
// the expression fires every unit at the anchor's phase and a `when` guard skips runs that come
// sooner than N units after the last scheduled one. Runs before start or after end are prevented by
// suspending the CronWorkflow outside [start, end] (see cronWindow) — the operator re-compiles then.
import type { SessionSchedule } from '@sandflow/crds';

export type PeriodicLabel = 'minutely' | 'hourly' | 'daily' | 'weekly' | 'monthly' | 'yearly';

export type CompiledSchedule =
  | { kind: 'once'; at: string }
  | {
      kind: 'cron';
      /** Five-field cron expression, UTC. */
      cron: string;
      /** Argo `when` guard for periods cron cannot express, else undefined. */
      when?: string;
      /** Minimum seconds between two runs enforced by `when`. */
      minIntervalSeconds?: number;
      start: string;
      end?: string;
    };

const MINUTE = 60;
const HOUR = 3600;
const DAY = 86400;

/** Interval guard in the form Argo documents for CronWorkflow `when`. */
function whenGuard(seconds: number): string {
  return `{{= cronworkflow.lastScheduledTime == nil || (now() - cronworkflow.lastScheduledTime).Seconds() >= ${seconds} }}`;
}

export function compileSchedule(schedule: SessionSchedule): CompiledSchedule {
  const start = new Date(schedule.start);
  if (Number.isNaN(start.getTime())) throw new Error(`invalid schedule start: ${schedule.start}`);
  const value = schedule.periodicValue ?? 1;
  if (!schedule.periodic || value < 1) return { kind: 'once', at: start.toISOString() };
  const label: PeriodicLabel = schedule.periodicLabel ?? 'daily';
  const mi = start.getUTCMinutes();
  const h = start.getUTCHours();
  const d = start.getUTCDate();
  const mo = start.getUTCMonth() + 1;
  const dow = start.getUTCDay();
  const base = {
    kind: 'cron' as const,
    start: start.toISOString(),
    ...(schedule.end ? { end: new Date(schedule.end).toISOString() } : {}),
  };
  const guarded = (cron: string, seconds: number): CompiledSchedule => ({
    ...base,
    cron,
    when: whenGuard(seconds),
    minIntervalSeconds: seconds,
  });
  switch (label) {
    case 'minutely':
      if (value === 1) return { ...base, cron: '* * * * *' };
      if (60 % value === 0) return { ...base, cron: `${mi % value}-59/${value} * * * *` };
      if (value % 60 === 0)
        return compileSchedule({ ...schedule, periodicLabel: 'hourly', periodicValue: value / 60 });
      return guarded('* * * * *', value * MINUTE - MINUTE / 2);
    case 'hourly':
      if (value === 1) return { ...base, cron: `${mi} * * * *` };
      if (24 % value === 0) return { ...base, cron: `${mi} ${h % value}-23/${value} * * *` };
      if (value % 24 === 0)
        return compileSchedule({ ...schedule, periodicLabel: 'daily', periodicValue: value / 24 });
      return guarded(`${mi} * * * *`, value * HOUR - HOUR / 2);
    case 'daily':
      if (value === 1) return { ...base, cron: `${mi} ${h} * * *` };
      return guarded(`${mi} ${h} * * *`, value * DAY - DAY / 2);
    case 'weekly':
      if (value === 1) return { ...base, cron: `${mi} ${h} * * ${dow}` };
      return guarded(`${mi} ${h} * * ${dow}`, value * 7 * DAY - DAY / 2);
    case 'monthly':
      if (value === 1) return { ...base, cron: `${mi} ${h} ${d} * *` };
      if (12 % value === 0)
        return { ...base, cron: `${mi} ${h} ${d} ${((mo - 1) % value) + 1}-12/${value} *` };
      // N months last at least 28N+… days and N-1 months at most 31(N-1): 29.5N days separates them.
      return guarded(`${mi} ${h} ${d} * *`, Math.round(value * 29.5 * DAY));
    case 'yearly':
      if (value === 1) return { ...base, cron: `${mi} ${h} ${d} ${mo} *` };
      return guarded(`${mi} ${h} ${d} ${mo} *`, (value * 365 - 1) * DAY);
  }
}

function addPeriod(start: Date, label: PeriodicLabel, n: number): Date {
  const t = new Date(start.getTime());
  switch (label) {
    case 'minutely':
      return new Date(t.getTime() + n * MINUTE * 1000);
    case 'hourly':
      return new Date(t.getTime() + n * HOUR * 1000);
    case 'daily':
      return new Date(t.getTime() + n * DAY * 1000);
    case 'weekly':
      return new Date(t.getTime() + n * 7 * DAY * 1000);
    case 'monthly':
      t.setUTCMonth(t.getUTCMonth() + n);
      return t;
    case 'yearly':
      t.setUTCFullYear(t.getUTCFullYear() + n);
      return t;
  }
}

/**
 * The product's run times of a schedule at or after `from`, at most `limit` of them, none after end.
 * Seconds are truncated to the minute, like cron.
 */
export function scheduleOccurrences(schedule: SessionSchedule, from: Date, limit: number): Date[] {
  const start = new Date(schedule.start);
  start.setUTCSeconds(0, 0);
  const end = schedule.end ? new Date(schedule.end) : undefined;
  const value = schedule.periodicValue ?? 1;
  if (!schedule.periodic || value < 1) return start >= from && (!end || start <= end) ? [start] : [];
  const label = schedule.periodicLabel ?? 'daily';
  const out: Date[] = [];
  for (let k = 0; out.length < limit; k++) {
    const t = addPeriod(start, label, k * value);
    if (end && t > end) break;
    if (t >= from) out.push(t);
    if (k > 1_000_000) break;
  }
  return out;
}

/** The next run of a set of schedules after `now`, or undefined when none remains (session Completed). */
export function nextRun(schedules: SessionSchedule[], now: Date): Date | undefined {
  let best: Date | undefined;
  for (const s of schedules) {
    const [t] = scheduleOccurrences(s, now, 1);
    if (t && (!best || t < best)) best = t;
  }
  return best;
}

/** Whether a CronWorkflow for this schedule should be active (not suspended) at `now`. */
export function cronWindow(schedule: CompiledSchedule, now: Date): 'before' | 'active' | 'after' {
  if (schedule.kind === 'once') return now.getTime() > Date.parse(schedule.at) ? 'after' : 'before';
  // Activate one minute early so the run at exactly `start` is not missed.
  if (now.getTime() < Date.parse(schedule.start) - 60_000) return 'before';
  if (schedule.end && now.getTime() > Date.parse(schedule.end)) return 'after';
  return 'active';
}
