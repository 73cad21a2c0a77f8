// Run and sandbox statuses (spec 2 §4): the dashboard legend's colours, and which run actions
// each status allows.
import type { RunAction, RunStatus } from '../sessions/types';

/** The legend of the run dashboard (spec 2 §2), in its order. */
export const LEGEND = [
  { key: 'waiting', colour: '#9e9e9e' },
  { key: 'initializing', colour: '#00bcd4' },
  { key: 'running', colour: '#2196f3' },
  { key: 'completed', colour: '#4caf50' },
  { key: 'error', colour: '#f44336' },
  { key: 'paused', colour: '#ffb300' },
  { key: 'stopped', colour: '#8d6e63' },
  { key: 'skipped', colour: '#ce93d8' },
] as const;
export type LegendKey = (typeof LEGEND)[number]['key'];

const LEGEND_OF: Record<RunStatus, LegendKey> = {
  WAITING: 'waiting',
  SCHEDULED: 'waiting',
  QUEUED: 'waiting',
  INIT: 'initializing',
  RUNNING: 'running',
  COMPLETED: 'completed',
  ERROR: 'error',
  PAUSED: 'paused',
  STOPPED: 'stopped',
  SKIPPING: 'skipped',
  DELETED: 'stopped',
};

/** The legend entry of a status; unknown statuses read as waiting. */
export const legendOf = (status: string | undefined): LegendKey =>
  LEGEND_OF[(status ?? '').toUpperCase() as RunStatus] ?? 'waiting';
export const colourOf = (status: string | undefined) =>
  LEGEND.find((l) => l.key === legendOf(status))!.colour;

/** Sub-sandboxes in these states have no log yet: left out of the log selector (spec 2 §4). */
const WITHOUT_LOG: readonly string[] = ['INIT', 'SCHEDULED', 'QUEUED'];
export const hasLog = (status: string) => !WITHOUT_LOG.includes(status) && status !== 'WAITING';

/** The log download is offered once a sandbox is beyond waiting or init (spec 2 §4). */
export const beyondStart = (statuses: readonly string[]) =>
  statuses.some((s) => !['WAITING', 'INIT', 'SCHEDULED', 'QUEUED'].includes(s));

/** The runs modal's buttons, in order (view leads to the dashboard, start sends resume). */
export const RUN_BUTTONS = ['view', 'start', 'pause', 'stop', 'retry', 'restart', 'delete'] as const;
export type RunButton = (typeof RUN_BUTTONS)[number];

/** Which buttons a run in `status` offers (spec 2 §2 runs modal, §4 run actions). */
export function allowedButtons(status: RunStatus): Set<RunButton> {
  const allowed = new Set<RunButton>(['view', 'restart', 'delete']);
  if (status === 'PAUSED') allowed.add('start');
  if (status === 'RUNNING') allowed.add('pause');
  if (status === 'RUNNING' || status === 'PAUSED') allowed.add('stop');
  if (status === 'ERROR') allowed.add('retry');
  return allowed;
}

/** The action PUT /run/{uuid} receives for a button. */
export const ACTION_OF: Record<Exclude<RunButton, 'view'>, RunAction> = {
  start: 'resume',
  pause: 'pause',
  stop: 'stop',
  retry: 'retry',
  restart: 'restart',
  delete: 'delete',
};

/** Retry and restart stay disabled this long after a click (spec 2 §9). */
export const RETRY_LOCK_MS = 1500;
/** Start Now stays disabled this long after it succeeded (spec 2 §9). */
export const START_LOCK_MS = 3000;
/** Dashboard polling when the realtime socket is down: first after 2 s, then every 5 s. */
export const POLL_FIRST_MS = 2000;
export const POLL_EVERY_MS = 5000;
