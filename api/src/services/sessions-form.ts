import type { Session, SessionSpec, Workflow } from '@sandflow/crds';
import { badRequest, unprocessable } from '../errors.js';

export const PERIODS = ['minutely', 'hourly', 'daily', 'weekly', 'monthly', 'yearly'] as const;
export type Period = (typeof PERIODS)[number];

/** The compiler reads the session owner's UID and the group's GID from these (operator/src/compiler). */
export const RUN_AS = { user: 'sandflow.io/run-as-user', group: 'sandflow.io/run-as-group' } as const;

export interface ScheduleBody {
  start: string;
  periodic_label?: Period | null | undefined;
  periodic_value?: number | undefined;
  end?: string | null | undefined;
}
export interface EventBody {
  url: string;
  expect?: string | undefined;
  periodic_label?: Period | null | undefined;
  periodic_value?: number | undefined;
  end?: string | null | undefined;
}
export interface ResourcesBody {
  cpu: number;
  memory: number;
  disk: number;
}

/** Spec 2 §3 "Session save payload". */
export interface SessionBody {
  uuid?: string | undefined;
  name: string;
  workflow_uuid: string;
  group: string;
  type?: 'schedule' | 'event' | undefined;
  schedules?: ScheduleBody[] | undefined;
  events?: EventBody[] | undefined;
  attempts?: number | undefined;
  notifications?: string[] | undefined;
  notify_group?: boolean | undefined;
  notify_organization?: boolean | undefined;
  session_variables?: Record<string, { name: string; value: string }[]> | undefined;
  sandbox_resources?: Record<string, ResourcesBody> | undefined;
  cluster_pref?: string[] | undefined;
  has_cluster_pref?: boolean | undefined;
}

const invalid = (field: string, message: string) => badRequest(`${field}: ${message}`, 'invalid_session');

function time(field: string, value: string): number {
  const t = Date.parse(value);
  if (Number.isNaN(t)) throw invalid(field, 'Invalid date');
  return t;
}

/** A plan's period: a label with a value of at least 1 (0 or none: not periodic, spec 2 §5). */
function period(label: Period | null | undefined, value: number | undefined) {
  if (!label || value === undefined || value < 1) return null;
  return { periodicLabel: label, periodicValue: value };
}

function schedulesOf(body: ScheduleBody[]): NonNullable<SessionSpec['schedules']> {
  return body.map((s, i) => {
    const start = time(`schedules.${i}.start`, s.start);
    const p = period(s.periodic_label, s.periodic_value);
    // Spec 2 §5: the end is kept only for a periodic plan, and it cannot come before the start.
    if (p && s.end && time(`schedules.${i}.end`, s.end) < start)
      throw invalid(`schedules.${i}.end`, 'Error: invalid period');
    return {
      start: new Date(start).toISOString(),
      ...(p ? { periodic: true, ...p } : { periodic: false }),
      ...(p && s.end ? { end: new Date(s.end).toISOString() } : {}),
    };
  });
}

function eventsOf(body: EventBody[]): NonNullable<SessionSpec['events']> {
  return body.map((e, i) => {
    let url: URL;
    try {
      url = new URL(e.url);
    } catch {
      throw invalid(`events.${i}.url`, 'must be an http or https URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw invalid(`events.${i}.url`, 'must be an http or https URL');
    if (e.end && time(`events.${i}.end`, e.end) < Date.now())
      throw invalid(`events.${i}.end`, 'Error: invalid period');
    const p = period(e.periodic_label, e.periodic_value);
    return {
      url: url.toString(),
      expect: e.expect ?? '',
      ...(p ? { periodic: true, ...p } : { periodic: false }),
      ...(e.end ? { end: new Date(e.end).toISOString() } : {}),
    };
  });
}

/** A node of the workflow by id or by name: body keys may be either, the CR keys by name. */
function nodeName(workflow: Workflow, field: string, key: string): string {
  const nodes = workflow.spec.nodes ?? [];
  const node = nodes.find((n) => n.id === key) ?? nodes.find((n) => n.name === key);
  if (!node) throw invalid(`${field}.${key}`, 'no sandbox of the workflow has this id or name');
  return node.name;
}

export interface Quota {
  /** Whose quota: "the group quota of X", "your quota in X". */
  label: string;
  cpu: number;
  memory: number;
  disk: number;
}

/**
 * The spec a save writes. A sandbox asking more than a quota can ever give is refused (422
 * naming it); one that fits the quota but not what is free now is queued at run time
 * (QUEUED, the operator's admission).
 */
export function sessionSpec(
  body: SessionBody,
  ctx: {
    workflow: Workflow;
    workflowNamespace: string;
    owner: string;
    organizationId: string;
    quotas: Quota[];
    previous?: SessionSpec | undefined;
  },
): SessionSpec {
  if (!body.name) throw invalid('name', 'must not be empty');
  const type = body.type ?? (body.events?.length && !body.schedules?.length ? 'event' : 'schedule');
  const variables: NonNullable<SessionSpec['variables']> = {};
  for (const [key, list] of Object.entries(body.session_variables ?? {})) {
    const name = nodeName(ctx.workflow, 'session_variables', key);
    for (const [i, v] of list.entries()) {
      if (!v.name) throw invalid(`session_variables.${key}.${i}.name`, 'must not be empty');
      if (!v.value)
        throw invalid(
          `session_variables.${key}.${i}.value`,
          'You have empty fields on environment variables',
        );
    }
    if (list.length) variables[name] = list.map((v) => ({ name: v.name, value: v.value }));
  }
  const resources: NonNullable<SessionSpec['resources']> = {};
  for (const [key, r] of Object.entries(body.sandbox_resources ?? {})) {
    const name = nodeName(ctx.workflow, 'sandbox_resources', key);
    const wanted = { cpu: Math.round(r.cpu), memory: Math.round(r.memory), disk: Math.round(r.disk) };
    for (const unit of ['cpu', 'memory', 'disk'] as const) {
      if (wanted[unit] < 1) throw invalid(`sandbox_resources.${key}.${unit}`, 'must be above 0');
      const over = ctx.quotas.find((q) => wanted[unit] > q[unit]);
      if (over)
        throw unprocessable(
          `sandbox_resources.${key}.${unit}: ${wanted[unit]} is over ${over.label} (${over[unit]} ${unit === 'cpu' ? 'millicores' : 'MB'})`,
          'over_quota',
        );
    }
    resources[name] = wanted;
  }
  const emails = [...new Set((body.notifications ?? []).map((e) => e.trim().toLowerCase()))].filter(Boolean);
  const preference = body.has_cluster_pref ? body.cluster_pref?.[0] : undefined;
  if (body.has_cluster_pref && !preference)
    throw invalid('cluster_pref', 'choose one cluster manager, or clear has_cluster_pref');
  const spec: SessionSpec = {
    ...structuredClone(ctx.previous ?? ({} as SessionSpec)),
    name: body.name,
    workflow: ctx.workflow.metadata.name!,
    workflowNamespace: ctx.workflowNamespace,
    type,
    group: body.group,
    owner: ctx.previous?.owner ?? ctx.owner,
    organization: ctx.organizationId,
    schedules: schedulesOf(body.schedules ?? []),
    events: eventsOf(body.events ?? []),
    variables,
    resources,
    attempts: body.attempts ?? ctx.previous?.attempts ?? 1,
    notifications: {
      emails,
      notifyGroup: body.notify_group ?? false,
      notifyOrganization: body.notify_organization ?? false,
    },
  };
  if (preference) spec.clusterPreference = preference;
  else delete spec.clusterPreference;
  if (spec.attempts! < 1) throw invalid('attempts', 'must be at least 1');
  return spec;
}

const UNIT_MS: Record<Period, number> = {
  minutely: 60_000,
  hourly: 3_600_000,
  daily: 86_400_000,
  weekly: 7 * 86_400_000,
  monthly: 0,
  yearly: 0,
};

/** start + k × value × unit, the first at or after `now` (calendar months and years for those units). */
function nextOf(schedule: NonNullable<SessionSpec['schedules']>[number], now: number): number | null {
  const start = Date.parse(schedule.start);
  const end = schedule.end ? Date.parse(schedule.end) : Infinity;
  const value = schedule.periodicValue ?? 0;
  if (!schedule.periodic || value < 1) return start >= now ? start : null;
  if (start >= now) return start <= end ? start : null;
  const label = schedule.periodicLabel ?? 'daily';
  let at: number;
  if (UNIT_MS[label]) {
    const step = UNIT_MS[label] * value;
    at = start + Math.ceil((now - start) / step) * step;
  } else {
    const months = label === 'monthly' ? value : value * 12;
    const s = new Date(start);
    const elapsed =
      (new Date(now).getUTCFullYear() - s.getUTCFullYear()) * 12 +
      new Date(now).getUTCMonth() -
      s.getUTCMonth();
    let k = Math.max(0, Math.floor(elapsed / months));
    for (; ; k++) {
      const d = new Date(s);
      d.setUTCMonth(s.getUTCMonth() + k * months);
      if (d.getTime() >= now) {
        at = d.getTime();
        break;
      }
    }
  }
  return at <= end ? at : null;
}

/** The session's next run: the operator's status.nextRun when it has reconciled this version, else worked out here. */
export function nextRunOf(session: Session, now = Date.now()): string | null {
  const status = session.status;
  if (status?.observedGeneration === session.metadata.generation && status?.nextRun !== undefined)
    return status.nextRun;
  const times = (session.spec.schedules ?? [])
    .map((s) => nextOf(s, now))
    .filter((t): t is number => t !== null);
  return times.length ? new Date(Math.min(...times)).toISOString() : null;
}

/** The body's form of a saved spec (GET /schedule/:uuid, the edit form). */
export function detailOf(session: Session) {
  const spec = session.spec;
  return {
    uuid: session.metadata.name!,
    name: spec.name,
    type: spec.type ?? 'schedule',
    workflow_uuid: spec.workflow,
    group: spec.group ?? session.metadata.labels?.['sandflow.io/group'] ?? '',
    attempts: spec.attempts ?? 1,
    notifications: spec.notifications?.emails ?? [],
    notify_group: spec.notifications?.notifyGroup ?? false,
    notify_organization: spec.notifications?.notifyOrganization ?? false,
    schedules: (spec.schedules ?? []).map((s) => ({
      start: new Date(s.start).toISOString(),
      periodic: !!s.periodic,
      periodic_label: s.periodicLabel ?? null,
      periodic_value: s.periodicValue ?? 0,
      end: s.end ? new Date(s.end).toISOString() : null,
    })),
    events: (spec.events ?? []).map((e) => ({
      url: e.url ?? '',
      expect: e.expect ?? '',
      periodic: !!e.periodic,
      periodic_label: e.periodicLabel ?? null,
      periodic_value: e.periodicValue ?? 0,
      end: e.end ? new Date(e.end).toISOString() : null,
    })),
    session_variables: Object.fromEntries(
      Object.entries(spec.variables ?? {}).map(([k, list]) => [
        k,
        list.map((v) => ({ name: v.name, value: v.value ?? '' })),
      ]),
    ),
    sandbox_resources: Object.fromEntries(
      Object.entries(spec.resources ?? {}).map(([k, r]) => [
        k,
        { cpu: r.cpu ?? 0, memory: r.memory ?? 0, disk: r.disk ?? 0 },
      ]),
    ),
    cluster_pref: spec.clusterPreference ? [spec.clusterPreference] : [],
    has_cluster_pref: !!spec.clusterPreference,
    webhook: !!spec.webhook?.secretHash,
    creation_time: new Date(session.metadata.creationTimestamp ?? 0).toISOString(),
  };
}
