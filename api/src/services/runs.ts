import type { Run, RunSpec } from '@sandflow/crds';
import type { Knex } from 'knex';
import { badRequest, conflict, forbidden, notFound } from '../errors.js';
import { accessOf, viewerOf, type Resources } from '../resources/index.js';
import type { Caller } from './callers.js';
import type { EventService } from './events.js';
import { historyUsersOf, runJson, runRow } from './runs-json.js';
import {
  organizationScope,
  reachSession,
  replaceOverStatus,
  runsOf,
  syncedLayer,
  type OrganizationScope,
} from './sessions-scope.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const RUN_ACTIONS = ['pause', 'resume', 'stop', 'retry', 'restart', 'restart_from', 'delete'] as const;
export type RunAction = (typeof RUN_ACTIONS)[number];

/**
 * The run phases each action may be asked from: spec 2 §4, as the operator answers them
 * (operator/src/controllers/run/actions.ts ACTION_RULES; tests/runs/sessions.test.ts keeps the two
 * equal). Refusing here answers a clear 409 at once instead of a refusal the operator writes later.
 */
export const RUN_ACTION_RULES: Record<Exclude<RunAction, 'delete'>, ReadonlySet<string>> = {
  pause: new Set(['RUNNING', 'INIT']),
  resume: new Set(['PAUSED']),
  stop: new Set(['RUNNING', 'PAUSED', 'INIT', 'WAITING', 'QUEUED']),
  retry: new Set(['ERROR']),
  restart: new Set([
    'WAITING',
    'QUEUED',
    'INIT',
    'RUNNING',
    'COMPLETED',
    'ERROR',
    'PAUSED',
    'STOPPED',
    'SKIPPING',
  ]),
  restart_from: new Set(['COMPLETED', 'ERROR', 'STOPPED']),
};

/**
 * The spec fields that ask the operator for an action (tests/runs/actions.test.ts), with who asked
 * it in spec.requestedBy: the operator credits the action's history entry to them.
 */
export function requestFor(
  run: Run,
  action: Exclude<RunAction, 'delete'>,
  actorId: string,
  sandbox?: string,
): RunSpec {
  const spec = { ...run.spec };
  const by = (field: keyof NonNullable<RunSpec['requestedBy']>) => ({
    requestedBy: { ...spec.requestedBy, [field]: actorId },
  });
  switch (action) {
    case 'pause':
      return { ...spec, suspend: true, ...by('suspend') };
    case 'resume':
      return { ...spec, suspend: false, ...by('suspend') };
    case 'stop':
      return { ...spec, stop: true, ...by('stop') };
    case 'retry':
      return { ...spec, retry: (spec.retry ?? 0) + 1, ...by('retry') };
    case 'restart':
      return { ...spec, restart: (spec.restart ?? 0) + 1, stop: false, suspend: false, ...by('restart') };
    case 'restart_from':
      return {
        ...spec,
        restartFrom: { sandbox: sandbox!, request: (spec.restartFrom?.request ?? 0) + 1 },
        ...by('restartFrom'),
      };
  }
}

export function createRunService(deps: { db: Knex; resources: Resources | null; events: EventService }) {
  const { db, events } = deps;

  /** A run of the caller's organization they may see (404 otherwise), and what they may do with it. */
  async function reachRun(caller: Caller, id: string) {
    const layer = await syncedLayer(deps.resources);
    const scope = await organizationScope(db, layer, caller);
    const run = scope
      ? [...scope.byNamespace.keys()].map((ns) => layer.runs.get(ns, id)).find(Boolean)
      : undefined;
    if (!scope || !run) throw notFound('Run');
    const subject = layer.runs.kind.access(run);
    const session = layer.sessions.get(run.metadata.namespace!, run.spec.session);
    const sessionOwner = session ? layer.sessions.kind.access(session).owner : undefined;
    const viewer = await viewerOf(db, caller, scope.organizationId, [subject.owner, sessionOwner]);
    const access = accessOf(viewer, subject);
    // The session's owner acts on every run of it, whoever started the run.
    const owner = !!sessionOwner && sessionOwner === caller.userId;
    if (!access.view && !owner) throw notFound('Run');
    return { ...scope, run, session, access, mayAct: access.use || access.own || owner };
  }

  const currentWorkflow = (resources: Resources, namespace: string, run: Run) =>
    run.spec.workflow ? resources.workflows.get(namespace, run.spec.workflow)?.spec : undefined;

  const groupNames = (scope: OrganizationScope) => new Map(scope.groups.map((g) => [g.id, g.name]));

  /**
   * Spec 2 §3: the run with its history naming users by username (the e-mail) — the operator writes
   * user ids — read with one statement for all its entries; a deleted user reads as its id.
   */
  async function served(scope: OrganizationScope, run: Run) {
    const ids = historyUsersOf(run).filter((id) => UUID.test(id));
    const rows: { id: string; email: string }[] = ids.length
      ? await db('users').whereIn('id', ids).select('id', 'email')
      : [];
    const users = new Map(rows.map((r) => [r.id, r.email]));
    return runJson(run, currentWorkflow(scope.resources, scope.namespace, run), {
      users,
      groups: groupNames(scope),
    });
  }

  return {
    /** GET /run/:uuid */
    async get(caller: Caller, id: string) {
      const ctx = await reachRun(caller, id);
      return served(ctx, ctx.run);
    },

    /** GET /schedule/:uuid/run, GET /event/:uuid/run: the session's runs, newest first. */
    async list(caller: Caller, sessionId: string) {
      const ctx = await reachSession(db, deps.resources, caller, sessionId, 'view');
      const groups = groupNames(ctx);
      return runsOf(ctx.resources, ctx.object)
        .reverse()
        .map((run) => runRow(run, groups));
    },

    /**
     * PUT /run/:uuid: the action is written into the Run's spec, where the operator answers it; one
     * the run's state does not allow is a 409 naming the state, and nothing is written.
     */
    async act(caller: Caller, id: string, action: RunAction, sandbox?: string) {
      const ctx = await reachRun(caller, id);
      if (!ctx.mayAct) throw forbidden(`Run ${id}: not allowed`);
      const { run, resources } = ctx;
      if (action === 'delete') {
        await resources.runs.remove(run, caller.userId);
        await events.record(caller, {
          kind: 'runs',
          action: 'remove',
          subject: run.spec.name ?? id,
          organizationId: ctx.organizationId,
          data: [{ id, session: run.spec.session }],
        });
        return { ...(await served(ctx, run)), status: 'DELETED' as const };
      }
      const allowed = RUN_ACTION_RULES[action];
      const allow = (current: Run) => {
        const now = current.status?.phase ?? 'WAITING';
        if (!allowed.has(now))
          throw conflict(
            `${action} is not allowed while the run is ${now} (allowed from ${[...allowed].join(', ')})`,
          );
      };
      allow(run);
      let target = sandbox;
      if (action === 'restart_from') {
        if (!sandbox)
          throw badRequest('sandbox: restart_from needs the sandbox to restart from', 'invalid_body');
        const nodes = run.status?.workflow?.nodes ?? [];
        const node = nodes.find((n) => n.id === sandbox) ?? nodes.find((n) => n.name === sandbox);
        if (!node) throw badRequest(`sandbox: no sandbox ${sandbox} in this run`, 'invalid_body');
        target = node.name;
      }
      const next = await replaceOverStatus(
        resources.runs,
        run,
        (current) => ({ ...current, spec: requestFor(current, action, caller.userId, target) }),
        caller.userId,
        allow,
      );
      await events.record(caller, {
        kind: 'runs',
        action,
        subject: run.spec.name ?? id,
        organizationId: ctx.organizationId,
        data: [{ id, session: run.spec.session, ...(target ? { sandbox: target } : {}) }],
      });
      return served(ctx, next);
    },
  };
}

export type RunService = ReturnType<typeof createRunService>;
