// Realtime effects on sessions and runs (spec 2 §4): a run message patches the cached session
// list, the session's runs and the run itself — no refetch.
import type { QueryClient } from '@tanstack/react-query';
import { runKeys, sessionKeys } from '../sessions/queries';
import { ZERO_DATE, type Run, type RunStatus, type SessionItem } from '../sessions/types';

export type RunEvent =
  | 'created'
  | 'initializing'
  | 'queued'
  | 'started'
  | 'completed'
  | 'failed'
  | 'stop'
  | 'pause'
  | 'resume'
  | 'restart'
  | 'retry'
  | 'delete';

// The message's action, in the spellings the API and the audit log use.
const EVENTS: Record<string, RunEvent> = {
  created: 'created',
  initializing: 'initializing',
  queued: 'queued',
  start: 'started',
  started: 'started',
  play: 'started',
  played: 'started',
  complete: 'completed',
  completed: 'completed',
  success: 'completed',
  fail: 'failed',
  failed: 'failed',
  error: 'failed',
  stop: 'stop',
  stopped: 'stop',
  pause: 'pause',
  paused: 'pause',
  resume: 'resume',
  resumed: 'resume',
  restart: 'restart',
  restarted: 'restart',
  retry: 'retry',
  retried: 'retry',
  delete: 'delete',
  deleted: 'delete',
};
/** The API sends `run.<event>` (api/src/services/runs-events.ts); bare names are accepted too. */
export const runEventOf = (action: string): RunEvent | null =>
  EVENTS[
    action
      .trim()
      .toLowerCase()
      .replace(/^run\./, '')
  ] ?? null;

/** A run message's data: the session (uuid), the run, and the run's phase and times when sent. */
export interface RunMessageData {
  action: string;
  uuid?: string;
  run_uuid?: string;
  status?: string;
  start?: string | null;
  stop?: string | null;
}

/** message_data is a JSON string `{ action, data: { uuid, run_uuid, status?, start?, stop? } }`. */
export function runDataOf(raw: unknown): RunMessageData | null {
  let value: unknown = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      return null;
    }
  }
  if (!value || typeof value !== 'object') return null;
  const { action, data } = value as { action?: unknown; data?: Record<string, unknown> | null };
  if (typeof action !== 'string' || !data || typeof data !== 'object') return null;
  const text = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
  return {
    action,
    uuid: text(data.uuid),
    run_uuid: text(data.run_uuid),
    status: text(data.status),
    start: text(data.start) ?? null,
    stop: text(data.stop) ?? null,
  };
}

/** What each event does to the run: its status, and whether start / stop become now. */
const RUN_EFFECT: Record<
  Exclude<RunEvent, 'delete'>,
  { status: RunStatus; start?: true; stop?: true | 'clear' }
> = {
  created: { status: 'WAITING' },
  initializing: { status: 'INIT' },
  queued: { status: 'QUEUED' },
  started: { status: 'RUNNING', start: true },
  completed: { status: 'COMPLETED', stop: true },
  failed: { status: 'ERROR', stop: true },
  stop: { status: 'STOPPED' },
  pause: { status: 'PAUSED' },
  resume: { status: 'RUNNING' },
  restart: { status: 'RUNNING' },
  retry: { status: 'RUNNING', stop: 'clear' },
};

/** The run after the event; the phase and times the message carries win over the table's. */
export function patchRun(
  run: Run,
  event: Exclude<RunEvent, 'delete'>,
  now: string,
  sent: Pick<RunMessageData, 'status' | 'start' | 'stop'> = {},
): Run {
  const effect = RUN_EFFECT[event];
  return {
    ...run,
    status: (sent.status as RunStatus | undefined) ?? effect.status,
    ...(effect.start ? { start: now } : {}),
    ...(effect.stop === true ? { stop: now } : effect.stop === 'clear' ? { stop: ZERO_DATE } : {}),
    ...(sent.start ? { start: sent.start } : {}),
    ...(sent.stop ? { stop: sent.stop } : {}),
  };
}

/** The session's flags as its remaining runs say (after a run is deleted). */
export function recomputeSession(session: SessionItem, runs: readonly Run[]): SessionItem {
  const latest = [...runs].sort((a, b) => b.start.localeCompare(a.start))[0];
  return {
    ...session,
    running: runs.some((r) => r.status === 'RUNNING'),
    error: latest?.status === 'ERROR',
    run_count: runs.length,
    has_run_list: runs.length > 0,
  };
}

export function patchSession(
  session: SessionItem,
  event: Exclude<RunEvent, 'delete'>,
  added: boolean,
): SessionItem {
  const count = added ? { has_run_list: true, run_count: session.run_count + 1 } : {};
  switch (event) {
    case 'created':
    case 'initializing':
    case 'queued':
      return { ...session, ...count };
    case 'started':
      return { ...session, ...count, running: true, has_run_list: true };
    case 'completed':
      return { ...session, running: false, error: false };
    case 'failed':
      return { ...session, running: false, error: true };
    case 'stop':
    case 'pause':
      return { ...session, running: false };
    default:
      return { ...session, running: true };
  }
}

/**
 * Applies one run message to the cache. `session` and `run` are the message data's uuid and
 * run_uuid. Returns whether the action was a run event.
 */
// Runs already counted in a session's run_count, per cache: a run is announced as created (or
// started) when it appears and started again when it runs, and the runs list may not be loaded.
const counted = new WeakMap<QueryClient, Set<string>>();

export function applyRunMessage(
  client: QueryClient,
  data: RunMessageData,
  now = new Date().toISOString(),
): boolean {
  const event = runEventOf(data.action);
  const { uuid: session, run_uuid: runId } = data;
  if (!event || !session || !runId) return false;

  if (event === 'delete') {
    const runs = client.getQueryData<Run[]>(sessionKeys.runs(session));
    const left = runs?.filter((r) => r.uuid !== runId);
    if (left) client.setQueryData(sessionKeys.runs(session), left);
    client.removeQueries({ queryKey: runKeys.one(runId) });
    client.setQueryData<SessionItem[]>(sessionKeys.list, (list) =>
      list?.map((s) =>
        s.uuid !== session
          ? s
          : left
            ? recomputeSession(s, left)
            : { ...s, run_count: Math.max(0, s.run_count - 1), has_run_list: s.run_count > 1 },
      ),
    );
    return true;
  }

  const runs = client.getQueryData<Run[]>(sessionKeys.runs(session));
  const known = runs?.some((r) => r.uuid === runId) ?? false;
  const seen = counted.get(client) ?? new Set<string>();
  counted.set(client, seen);
  const appears = event === 'started' || event === 'created';
  const added = appears && !known && !seen.has(runId);
  if (appears) seen.add(runId);
  if (runs) {
    client.setQueryData<Run[]>(
      sessionKeys.runs(session),
      known
        ? runs.map((r) => (r.uuid === runId ? patchRun(r, event, now, data) : r))
        : appears
          ? [
              patchRun({ uuid: runId, status: 'WAITING', start: now, stop: ZERO_DATE }, event, now, data),
              ...runs,
            ]
          : runs,
    );
  }
  client.setQueryData<Run>(runKeys.one(runId), (run) => (run ? patchRun(run, event, now, data) : run));
  // Messages carry the run's phase only: an open dashboard asks again for its sandboxes and files.
  void client.invalidateQueries({ queryKey: runKeys.one(runId), refetchType: 'active' });
  void client.invalidateQueries({ queryKey: runKeys.files(runId), refetchType: 'active' });
  client.setQueryData<SessionItem[]>(sessionKeys.list, (list) =>
    list?.map((s) => (s.uuid === session ? patchSession(s, event, added) : s)),
  );
  return true;
}
