import type { Run, Session } from '@sandflow/crds';
import { KINDS, LABELS, sameJson } from '@sandflow/kube';
import type { AccessSubject, ResourceKind } from './types.js';

export type SessionObject = Session;
export type RunObject = Run;

/**
 * Sessions and runs belong to a group (their namespace): its members see them and may start and
 * act on runs (read + execute); editing and deleting a session is its owner's (and, for objects
 * applied with kubectl, the organization admins'), as for every object (access.ts).
 */
function groupSubject(owner: string | undefined, group: string | undefined): AccessSubject {
  return {
    owner,
    permissions: group ? { [group]: { read: true, execute: true } } : {},
    visibility: { type: 'group', locked: true },
  };
}

export const SESSION_KIND: ResourceKind<Session> = {
  kind: KINDS.session,
  title: 'Session',
  events: 'sessions',
  access: (o) =>
    groupSubject(
      o.spec.owner || o.metadata.labels?.[LABELS.owner] || undefined,
      o.spec.group || o.metadata.labels?.[LABELS.group] || undefined,
    ),
  displayName: (o) => o.spec?.name || o.metadata.name!,
  changeAction(before, after) {
    if (before && sameJson({ ...before, name: after.name }, after)) return 'rename';
    return 'update';
  },
};

export const RUN_KIND: ResourceKind<Run> = {
  kind: KINDS.run,
  title: 'Run',
  events: 'runs',
  access: (o) =>
    groupSubject(
      o.spec.owner || o.metadata.labels?.[LABELS.owner] || undefined,
      o.spec.group || o.metadata.labels?.[LABELS.group] || undefined,
    ),
  displayName: (o) => o.spec?.name || o.metadata.name!,
  changeAction(before, after) {
    if (!before) return 'update';
    const asked = (['suspend', 'stop', 'retry', 'restart', 'restartFrom'] as const).filter(
      (k) => !sameJson(before[k], after[k]),
    );
    if (asked.length === 0) return 'update';
    if (asked.includes('restartFrom')) return 'restart_from';
    if (asked.includes('restart')) return 'restart';
    if (asked.includes('retry')) return 'retry';
    if (asked.includes('stop') && after.stop) return 'stop';
    return after.suspend ? 'pause' : 'resume';
  },
};
