import type { Result } from '../../api/answers';
import type { operations } from '../../api/schema.gen';

// The session and run shapes of spec 2 §3 / §7. The answers are the generated types of
// api/openapi.yaml (`npm run generate:client -w console`); the form's pieces keep their own names.

export type SessionType = 'schedule' | 'event';
export type PeriodicLabel = 'minutely' | 'hourly' | 'daily' | 'weekly' | 'monthly' | 'yearly';
export const PERIODS: readonly PeriodicLabel[] = [
  'minutely',
  'hourly',
  'daily',
  'weekly',
  'monthly',
  'yearly',
];

/** GET /session item ('Session (list)'). */
export type SessionItem = Result<'getSession'>[number];

export interface ScheduleEntry {
  start: string;
  periodic?: boolean;
  end?: string | null;
  periodic_label?: PeriodicLabel | null;
  periodic_value?: number;
}
export interface EventEntry {
  url: string;
  expect: string;
  periodic?: boolean;
  periodic_label?: PeriodicLabel | null;
  periodic_value?: number;
  end?: string | null;
}
export interface NamedVariable {
  name: string;
  value: string;
}
export interface Resources {
  cpu: number;
  memory: number;
  disk: number;
}

/** GET /{type}/{uuid} ('Session detail'). */
export type SessionDetail = Result<'getScheduleUuid'>;

/** POST /session and PUT /session/{uuid} ('Session save payload'). */
export interface SessionBody {
  uuid?: string;
  name: string;
  workflow_uuid: string;
  type: SessionType;
  schedules: ScheduleEntry[];
  events: EventEntry[];
  attempts: number;
  notifications: string[];
  notify_group: boolean;
  notify_organization: boolean;
  group: string;
  session_variables: Record<string, NamedVariable[]>;
  sandbox_resources: Record<string, Resources>;
  cluster_pref: string[];
  has_cluster_pref: boolean;
}

/** GET /session/workflows item. */
export type SessionWorkflow = Result<'getSessionWorkflows'>[number];

/** What POST /session accepts (the form sends the narrower SessionBody). */
export type SessionRequest = operations['postSession']['requestBody']['content']['application/json'];

export type RunFile = Result<'getFileUuid'>[number];

/** GET /run/{uuid}: the run with its sandboxes' statuses, history, graph and output files. */
export type RunDetail = Result<'getRunUuid'>;
/** GET /{type}/{uuid}/run item. */
export type RunRow = Result<'getScheduleUuidRun'>[number];
/** A run as the screens hold it: a runs-list row, or the whole run of GET /run/{uuid}. */
export type Run = Pick<RunDetail, 'uuid' | 'status' | 'start' | 'stop'> &
  Partial<Omit<RunDetail, 'uuid' | 'status' | 'start' | 'stop'>>;
/** Run and sandbox statuses (spec 2 §4); sub-sandboxes also SCHEDULED and QUEUED. */
export type RunStatus = RunDetail['status'];
export type RunGraph = RunDetail['workflow'];
export type SandboxStatus = RunDetail['sandbox_statuses'][number];
export type SubSandboxStatus = SandboxStatus['sub_sandbox'][number];
export type HistoryEntry = RunDetail['history'][number];

/** PUT /run/{uuid} actions (spec 2 §7). */
export type RunAction = 'pause' | 'resume' | 'stop' | 'retry' | 'restart' | 'delete' | 'restart_from';

/** Unset start or stop (spec 2 §3, §9). */
export const ZERO_DATE = '0001-01-01T00:00:00Z';
export const isZeroDate = (value: string | null | undefined) => !value || value.startsWith('0001-01-01');
