// Fixture factories for the session and run screens' tests.
import type { Run, SandboxStatus, SessionDetail, SessionItem, SessionWorkflow } from './types';

export function sessionItem(over: Partial<SessionItem> = {}): SessionItem {
  return {
    uuid: 's-1',
    name: 'nightly',
    workflow: 'ndvi',
    workflow_uuid: 'w-1',
    group: 'g-1',
    creation_time: '2026-11-10T10:00:00.000Z',
    type: 'schedule',
    error: false,
    general_error: false,
    running: false,
    has_run_list: true,
    next_run: null,
    run_count: 1,
    active: false,
    plans: [{ kind: 'schedule', start: null, url: null, periodic_label: null, periodic_value: 0, end: null }],
    ...over,
  };
}

export function sessionDetail(over: Partial<SessionDetail> = {}): SessionDetail {
  return {
    ...sessionItem(),
    notifications: [],
    attempts: 1,
    schedules: [],
    events: [],
    session_variables: {},
    sandbox_resources: {},
    notify_group: false,
    notify_organization: false,
    cluster_pref: [],
    has_cluster_pref: false,
    webhook: false,
    user_access: { read: true, write: true, execute: true, owner: true },
    ...over,
  };
}

export function sandboxStatus(over: Partial<SandboxStatus> = {}): SandboxStatus {
  return {
    id: 'n0',
    name: 'step0',
    status: 'WAITING',
    history: [],
    cluster_manager_host: '',
    start: '0001-01-01T00:00:00Z',
    stop: '0001-01-01T00:00:00Z',
    sub_sandbox: [],
    ...over,
  };
}

export function run(over: Partial<Run> = {}): Run {
  return {
    uuid: 'r-1',
    status: 'COMPLETED',
    start: '2026-11-20T10:00:00Z',
    stop: '2026-11-20T10:05:00Z',
    group: 'team',
    ...over,
  };
}

export function sessionWorkflow(over: Partial<SessionWorkflow> = {}): SessionWorkflow {
  return { name: 'ndvi', uuid: 'w-1', version: '1.0.0', valid: true, ...over };
}
