// The session form's state and rules (spec 2 §2 'Session create/edit', §5, §9), kept pure so
// the table tests cover them; the components only render and call these.
import type {
  EventEntry,
  NamedVariable,
  PeriodicLabel,
  Resources,
  ScheduleEntry,
  SessionBody,
  SessionDetail,
  SessionType,
} from './types';

/** Spec 2 §9: defaults, steps and minimums in cores and GB. */
export const RESOURCE_RULES = {
  cpu: { step: 0.5, min: 0.5 },
  memory: { step: 0.5, min: 0.5 },
  disk: { step: 0.1, min: 0.1 },
} as const;
export type ResourceKind = keyof typeof RESOURCE_RULES;
export const DEFAULT_RESOURCES: Resources = { cpu: 0.5, memory: 0.5, disk: 0.1 };
export const DEFAULT_ATTEMPTS = 1;
/** Memory and disk travel in MB (the Session CR's unit); the form shows GB. */
const MB_PER_GB = 1024;

export interface PlanForm {
  /** datetime-local text, YYYY-MM-DDTHH:mm (schedules only). */
  time: string;
  periodic: boolean;
  periodicLabel: PeriodicLabel;
  periodicValue: string;
  isUntil: boolean;
  until: string;
  /** Events only. */
  url: string;
  expect: string;
}

export interface SessionForm {
  name: string;
  workflow_uuid: string;
  group: string;
  type: SessionType;
  /** Per sandbox (node name): its variables and resources (cores / GB). */
  variables: Record<string, NamedVariable[]>;
  resources: Record<string, Resources>;
  schedules: PlanForm[];
  events: PlanForm[];
  restartOnFail: boolean;
  /** 'Number of times' a failing sandbox is restarted (default 1); sent as attempts = 1 + it. */
  restarts: number;
  notify: boolean;
  emails: string[];
  notifyGroup: boolean;
  notifyOrganization: boolean;
  /** The one cluster manager preferred, '' for none. */
  cluster: string;
}

export const emptyForm = (): SessionForm => ({
  name: '',
  workflow_uuid: '',
  group: '',
  type: 'schedule',
  variables: {},
  resources: {},
  schedules: [],
  events: [],
  restartOnFail: false,
  restarts: DEFAULT_ATTEMPTS,
  notify: false,
  emails: [],
  notifyGroup: false,
  notifyOrganization: false,
  cluster: '',
});

/** A new schedule: daily with value 1 (spec 2 §9). */
export const newPlan = (): PlanForm => ({
  time: '',
  periodic: false,
  periodicLabel: 'daily',
  periodicValue: '1',
  isUntil: false,
  until: '',
  url: '',
  expect: '',
});

/** A value that is at least its minimum and a multiple of its step (within float noise). */
export function resourceValid(kind: ResourceKind, value: number): boolean {
  const { step, min } = RESOURCE_RULES[kind];
  if (!Number.isFinite(value) || value < min - 1e-9) return false;
  const steps = value / step;
  return Math.abs(steps - Math.round(steps)) < 1e-6;
}

/** Save and Start Now are disabled unless this holds (spec 2 §5). */
export function canSubmit(form: SessionForm, workflowLoading: boolean): boolean {
  if (!form.name.trim() || !form.workflow_uuid || !form.group || workflowLoading) return false;
  return Object.values(form.resources).every((r) =>
    (Object.keys(RESOURCE_RULES) as ResourceKind[]).every((k) => resourceValid(k, r[k])),
  );
}

const toTime = (local: string) => (local ? new Date(local).getTime() : NaN);

/** Whether a plan's 'until' is earlier than its start ('Invalid date' / 'Error: invalid period'). */
export function invalidPeriod(plan: PlanForm, kind: 'schedule' | 'event', now = Date.now()): boolean {
  if (!plan.periodic || !plan.isUntil || !plan.until) return false;
  const start = kind === 'schedule' ? toTime(plan.time) : now;
  return Number.isFinite(start) && toTime(plan.until) < start;
}

/** The first plan of the chosen type whose period is invalid, or -1. */
export function firstInvalidPlan(form: SessionForm, now = Date.now()): number {
  return form.type === 'schedule'
    ? form.schedules.findIndex((p) => invalidPeriod(p, 'schedule', now))
    : form.events.findIndex((p) => invalidPeriod(p, 'event', now));
}

const iso = (local: string) => new Date(local).toISOString();
const periodValue = (text: string) => Math.max(0, Number.parseInt(text, 10) || 0);

/** Schedules with a start time only; the end only when periodic and until are both set (§5). */
export function toSchedules(plans: readonly PlanForm[]): ScheduleEntry[] {
  return plans
    .filter((p) => p.time)
    .map((p) => ({
      start: iso(p.time),
      periodic: p.periodic,
      periodic_label: p.periodic ? p.periodicLabel : null,
      periodic_value: p.periodic ? periodValue(p.periodicValue) : 0,
      ...(p.periodic && p.isUntil && p.until ? { end: iso(p.until) } : {}),
    }));
}

export function toEvents(plans: readonly PlanForm[]): EventEntry[] {
  return plans
    .filter((p) => p.url.trim())
    .map((p) => ({
      url: p.url.trim(),
      expect: p.expect,
      periodic: p.periodic,
      periodic_label: p.periodic ? p.periodicLabel : null,
      periodic_value: p.periodic ? periodValue(p.periodicValue) : 0,
      ...(p.periodic && p.isUntil && p.until ? { end: iso(p.until) } : {}),
    }));
}

/** Trimmed, lowercased, without repeats or blanks (notification e-mails and their suggestions). */
export function normaliseEmails(emails: readonly string[]): string[] {
  return [...new Set(emails.map((e) => e.trim().toLowerCase()).filter(Boolean))];
}

export function toBody(form: SessionForm, uuid?: string): SessionBody {
  const sandbox_resources = Object.fromEntries(
    Object.entries(form.resources).map(([name, r]) => [
      name,
      {
        cpu: Math.round(r.cpu * 1000),
        memory: Math.round(r.memory * MB_PER_GB),
        disk: Math.round(r.disk * MB_PER_GB),
      },
    ]),
  );
  return {
    ...(uuid ? { uuid } : {}),
    name: form.name.trim(),
    workflow_uuid: form.workflow_uuid,
    type: form.type,
    schedules: form.type === 'schedule' ? toSchedules(form.schedules) : [],
    events: form.type === 'event' ? toEvents(form.events) : [],
    // The Session CR counts executions (1 = no retry); the form counts restarts.
    attempts: form.restartOnFail ? 1 + Math.max(1, Math.floor(form.restarts)) : 1,
    notifications: form.notify ? normaliseEmails(form.emails) : [],
    notify_group: form.notifyGroup,
    notify_organization: form.notifyOrganization,
    group: form.group,
    session_variables: form.variables,
    sandbox_resources,
    cluster_pref: form.cluster ? [form.cluster] : [],
    has_cluster_pref: Boolean(form.cluster),
  };
}

const pad = (n: number) => String(n).padStart(2, '0');
/** An ISO date as datetime-local text in the browser's zone; '' for none or the zero date. */
export function toLocalInput(value: string | null | undefined): string {
  if (!value || value.startsWith('0001-01-01')) return '';
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return '';
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

function planOf(entry: ScheduleEntry | EventEntry, time: string): PlanForm {
  const label = entry.periodic_label || '';
  const until = toLocalInput(entry.end);
  return {
    ...newPlan(),
    time,
    periodic: entry.periodic ?? Boolean(label),
    periodicLabel: (label || 'daily') as PeriodicLabel,
    periodicValue: String(entry.periodic_value ?? 1),
    isUntil: Boolean(until),
    until,
  };
}

/** GET /{type}/{uuid} → the form (cpu back to cores, memory and disk back to GB). */
export function fromDetail(detail: SessionDetail, type: SessionType): SessionForm {
  const attempts = detail.attempts ?? 1;
  return {
    ...emptyForm(),
    name: detail.name,
    workflow_uuid: detail.workflow_uuid,
    group: detail.group,
    type,
    variables: detail.session_variables ?? {},
    resources: Object.fromEntries(
      Object.entries(detail.sandbox_resources ?? {}).map(([name, r]) => [
        name,
        { cpu: r.cpu / 1000, memory: r.memory / MB_PER_GB, disk: r.disk / MB_PER_GB },
      ]),
    ),
    schedules: (detail.schedules ?? []).map((s) => planOf(s, toLocalInput(s.start))),
    events: (detail.events ?? []).map((e) => ({ ...planOf(e, ''), url: e.url, expect: e.expect })),
    restartOnFail: attempts > 1,
    restarts: attempts > 1 ? attempts - 1 : DEFAULT_ATTEMPTS,
    notify: (detail.notifications ?? []).length > 0,
    emails: detail.notifications ?? [],
    notifyGroup: Boolean(detail.notify_group),
    notifyOrganization: Boolean(detail.notify_organization),
    cluster: detail.has_cluster_pref ? (detail.cluster_pref?.[0] ?? '') : '',
  };
}
