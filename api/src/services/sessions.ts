import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Session, SessionSpec } from '@sandflow/crds';
import { LABELS } from '@sandflow/kube';
import type { Knex } from 'knex';
import { badRequest, forbidden, notFound } from '../errors.js';
import {
  accessOf,
  viewerOf,
  type Resources,
  type RunObject,
  type SessionObject,
} from '../resources/index.js';
import type { Caller } from './callers.js';
import type { EventService } from './events.js';
import { validityOf } from './workflows-graph.js';
import { RUN_AS, detailOf, nextRunOf, sessionSpec, type Quota, type SessionBody } from './sessions-form.js';
import {
  CREATED_ANNOTATION,
  byCreation,
  organizationScope,
  reachSession,
  replaceOverStatus,
  runsOf,
  sessionsIn,
  syncedLayer,
  type OrganizationScope,
} from './sessions-scope.js';

const hashOf = (secret: string) => createHash('sha256').update(secret).digest('hex');

/** Spec 2 §3 Session (list) of one session, from the runs the cache holds now. */
function listItem(session: Session, runs: RunObject[], workflowName: string | null) {
  const latest = runs.at(-1);
  const plans = [
    ...(session.spec.schedules ?? []).map((s) => ({
      kind: 'schedule' as const,
      start: s.start,
      url: null,
      periodic_label: s.periodic ? (s.periodicLabel ?? null) : null,
      periodic_value: s.periodic ? (s.periodicValue ?? 0) : 0,
      end: s.end ?? null,
    })),
    ...(session.spec.events ?? []).map((e) => ({
      kind: 'event' as const,
      start: null,
      url: e.url ?? '',
      periodic_label: e.periodic ? (e.periodicLabel ?? null) : null,
      periodic_value: e.periodic ? (e.periodicValue ?? 0) : 0,
      end: e.end ?? null,
    })),
  ];
  const phase = session.status?.phase;
  return {
    uuid: session.metadata.name!,
    name: session.spec.name,
    workflow: workflowName,
    workflow_uuid: session.spec.workflow,
    group: session.spec.group ?? '',
    creation_time: new Date(session.metadata.creationTimestamp ?? 0).toISOString(),
    type: session.spec.type ?? 'schedule',
    error: latest?.status?.phase === 'ERROR',
    general_error: phase === 'Invalid',
    running: runs.some((r) => r.status?.phase === 'RUNNING'),
    has_run_list: runs.length > 0,
    next_run: nextRunOf(session),
    run_count: runs.length,
    active: phase !== 'Completed' && phase !== 'Suspended' && phase !== 'Invalid',
    plans,
  };
}

export function createSessionService(deps: { db: Knex; resources: Resources | null; events: EventService }) {
  const { db, events } = deps;

  function audit(caller: Caller, organizationId: string, action: string, o: Session) {
    return events.record(caller, {
      kind: 'sessions',
      action,
      subject: o.spec.name,
      organizationId,
      data: [{ id: o.metadata.name, namespace: o.metadata.namespace }],
    });
  }

  const workflowNameOf = (scope: OrganizationScope, s: Session) =>
    scope.resources.workflows.get(s.spec.workflowNamespace ?? scope.namespace, s.spec.workflow)?.spec.name ??
    null;

  /**
   * A workflow of the organization, valid (or not validated yet); on a save, one the caller may see.
   * Starting a run needs no more than that the session's workflow is there and valid: the members
   * of the group start what its owner chose.
   */
  async function usableWorkflow(scope: OrganizationScope, caller: Caller | null, id: string) {
    const workflow = scope.resources.workflows.get(scope.namespace, id);
    const subject = workflow && scope.resources.workflows.kind.access(workflow);
    const visible =
      !!subject &&
      (!caller || accessOf(await viewerOf(db, caller, scope.organizationId, [subject.owner]), subject).view);
    if (!workflow || !visible) throw badRequest(`workflow_uuid: no workflow ${id}`, 'invalid_session');
    if (validityOf(workflow).valid === false)
      throw badRequest(`workflow_uuid: the workflow ${workflow.spec.name} is invalid`, 'invalid_session');
    return workflow;
  }

  /** One of the caller's own groups of the organization (spec 2 §2), with its quotas for them. */
  async function callersGroup(scope: OrganizationScope, caller: Caller, groupId: string) {
    const group = scope.groups.find((g) => g.id === groupId);
    const row = group
      ? await db('groups')
          .join('group_members', 'group_members.group_id', 'groups.id')
          .where({ 'groups.id': group.id, 'group_members.user_id': caller.userId })
          .first(
            'groups.gid',
            'groups.quota_cpu as g_cpu',
            'groups.quota_memory as g_memory',
            'groups.quota_disk as g_disk',
            'group_members.quota_cpu as u_cpu',
            'group_members.quota_memory as u_memory',
            'group_members.quota_disk as u_disk',
            'group_members.use_percentage',
          )
      : undefined;
    if (!group || !row) throw badRequest(`group: ${groupId} is not one of your groups`, 'invalid_session');
    const groupQuota = { cpu: Number(row.g_cpu), memory: Number(row.g_memory), disk: Number(row.g_disk) };
    const user = row.use_percentage
      ? {
          cpu: (groupQuota.cpu * Number(row.u_cpu)) / 100,
          memory: (groupQuota.memory * Number(row.u_memory)) / 100,
          disk: (groupQuota.disk * Number(row.u_disk)) / 100,
        }
      : { cpu: Number(row.u_cpu), memory: Number(row.u_memory), disk: Number(row.u_disk) };
    // A limit of 0 is none, as the operator's admission reads the quotas.
    const limit = (q: { cpu: number; memory: number; disk: number }, label: string): Quota => ({
      label,
      cpu: q.cpu > 0 ? q.cpu : Infinity,
      memory: q.memory > 0 ? q.memory : Infinity,
      disk: q.disk > 0 ? q.disk : Infinity,
    });
    return {
      group,
      namespace: `${scope.namespace}-${group.slug}`,
      gid: Number(row.gid),
      quotas: [
        limit(groupQuota, `the quota of group ${group.name}`),
        limit(user, `your quota in ${group.name}`),
      ],
    };
  }

  async function uidOf(caller: Caller, organizationId: string): Promise<number | undefined> {
    const row = await db('organization_members')
      .where({ organization_id: organizationId, user_id: caller.userId })
      .first('uid');
    return row ? Number(row.uid) : undefined;
  }

  /** Create (no previous) or update, all checked before anything is written. */
  async function save(
    caller: Caller,
    body: SessionBody,
    previous?: Awaited<ReturnType<typeof reachSession>>,
  ) {
    const layer = await syncedLayer(deps.resources);
    const scope = previous ?? (await organizationScope(db, layer, caller));
    if (!scope) throw notFound('Organization');
    if (previous && body.workflow_uuid !== previous.object.spec.workflow)
      throw badRequest('workflow_uuid: the workflow of a session cannot change', 'invalid_session');
    if (previous && body.group !== (previous.object.spec.group ?? ''))
      throw badRequest('group: the group of a session cannot change', 'invalid_session');
    const workflow = await usableWorkflow(scope, caller, body.workflow_uuid);
    const target = await callersGroup(scope, caller, body.group);
    const spec = sessionSpec(body, {
      workflow,
      workflowNamespace: scope.namespace,
      owner: caller.userId,
      organizationId: scope.organizationId,
      quotas: target.quotas,
      previous: previous?.object.spec,
    });
    const uid = await uidOf(caller, scope.organizationId);
    const annotations = {
      ...previous?.object.metadata.annotations,
      ...(uid !== undefined ? { [RUN_AS.user]: String(uid) } : {}),
      [RUN_AS.group]: String(target.gid),
    };
    if (previous) {
      const object = previous.object;
      const unchanged =
        JSON.stringify(spec) === JSON.stringify(object.spec) &&
        JSON.stringify(annotations) === JSON.stringify(object.metadata.annotations ?? {});
      if (unchanged) return object;
      const next = await replaceOverStatus(
        layer.sessions,
        object,
        (current) => ({ ...current, metadata: { ...current.metadata, annotations }, spec }),
        caller.userId,
      );
      await audit(caller, scope.organizationId, 'update', next);
      return next;
    }
    const created = await layer.sessions.create(
      {
        apiVersion: 'sandflow.io/v1alpha1',
        kind: 'Session',
        metadata: {
          name: randomUUID(),
          namespace: target.namespace,
          labels: {
            [LABELS.organization]: scope.organizationId,
            [LABELS.group]: target.group.id,
            [LABELS.owner]: caller.userId,
          },
          annotations,
        },
        spec,
      },
      caller.userId,
    );
    await audit(caller, scope.organizationId, 'create', created);
    return created;
  }

  /** A Run of the session now (Start Now, the webhook, POST /session/fast). */
  async function startRun(
    resources: Resources,
    session: SessionObject,
    actor: { userId: string | null; organizationId: string },
    trigger: 'manual' | 'event',
  ) {
    const name = randomUUID();
    const run = await resources.runs.create(
      {
        apiVersion: 'sandflow.io/v1alpha1',
        kind: 'Run',
        metadata: {
          name,
          namespace: session.metadata.namespace!,
          labels: {
            ...session.metadata.labels,
            [LABELS.session]: session.metadata.name!,
            [LABELS.run]: name,
          },
          annotations: { [CREATED_ANNOTATION]: new Date().toISOString() },
        },
        spec: {
          session: session.metadata.name!,
          workflow: session.spec.workflow,
          name: session.spec.name,
          trigger,
          owner: actor.userId ?? session.spec.owner ?? '',
          ...(session.spec.group ? { group: session.spec.group } : {}),
        },
      },
      actor.userId ?? '',
    );
    await events.record(null, {
      kind: 'runs',
      action: trigger === 'event' ? 'webhook' : 'start',
      subject: session.spec.name,
      organizationId: actor.organizationId,
      data: [{ id: name, session: session.metadata.name, namespace: session.metadata.namespace }],
    });
    return run;
  }

  return {
    /** GET /session: the sessions of the caller's organization they may see, newest first. */
    async list(caller: Caller) {
      const layer = await syncedLayer(deps.resources);
      const scope = await organizationScope(db, layer, caller);
      if (!scope) return [];
      const all = sessionsIn(scope);
      const kind = layer.sessions.kind;
      const viewer = await viewerOf(
        db,
        caller,
        scope.organizationId,
        all.map((s) => kind.access(s).owner),
      );
      const visible = all.filter((s) => accessOf(viewer, kind.access(s)).view);
      // The runs of every namespace read once, not once per session.
      const runs = new Map<string, RunObject[]>();
      for (const ns of new Set(visible.map((s) => s.metadata.namespace!)))
        for (const r of layer.runs.list(ns)) {
          const key = `${ns}/${r.spec.session}`;
          const list = runs.get(key);
          if (list) list.push(r);
          else runs.set(key, [r]);
        }
      return visible
        .sort((a, b) =>
          (b.metadata.creationTimestamp ?? '').localeCompare(a.metadata.creationTimestamp ?? ''),
        )
        .map((s) =>
          listItem(
            s,
            (runs.get(`${s.metadata.namespace}/${s.metadata.name}`) ?? []).sort(byCreation),
            workflowNameOf(scope, s),
          ),
        );
    },

    /** GET /schedule/:uuid, GET /event/:uuid: the edit form's fields. */
    async get(caller: Caller, id: string) {
      const ctx = await reachSession(db, deps.resources, caller, id, 'view');
      return {
        ...detailOf(ctx.object),
        ...listItem(ctx.object, runsOf(ctx.resources, ctx.object), workflowNameOf(ctx, ctx.object)),
        user_access: {
          read: ctx.access.view,
          write: ctx.access.edit,
          execute: ctx.access.use,
          owner: ctx.access.own,
        },
      };
    },

    async create(caller: Caller, body: SessionBody) {
      const created = await save(caller, body);
      return { uuid: created.metadata.name!, name: created.spec.name };
    },

    async update(caller: Caller, id: string, body: SessionBody) {
      const ctx = await reachSession(db, deps.resources, caller, id, 'own');
      const saved = await save(caller, body, ctx);
      return { uuid: saved.metadata.name!, name: saved.spec.name };
    },

    /** POST /session/:uuid/clone: the caller's own copy in the same group (theirs too); no webhook. */
    async clone(caller: Caller, id: string) {
      const ctx = await reachSession(db, deps.resources, caller, id, 'view');
      const group = ctx.object.spec.group ?? '';
      const target = await callersGroup(ctx, caller, group).catch(() => {
        throw forbidden(`Session ${ctx.object.spec.name}: you are not a member of its group`);
      });
      const spec: SessionSpec = {
        ...structuredClone(ctx.object.spec),
        name: `${ctx.object.spec.name}_copy`,
        owner: caller.userId,
      };
      delete spec.webhook;
      const uid = await uidOf(caller, ctx.organizationId);
      const created = await ctx.resources.sessions.create(
        {
          apiVersion: 'sandflow.io/v1alpha1',
          kind: 'Session',
          metadata: {
            name: randomUUID(),
            namespace: target.namespace,
            labels: {
              [LABELS.organization]: ctx.organizationId,
              [LABELS.group]: target.group.id,
              [LABELS.owner]: caller.userId,
            },
            annotations: {
              ...(uid !== undefined ? { [RUN_AS.user]: String(uid) } : {}),
              [RUN_AS.group]: String(target.gid),
            },
          },
          spec,
        },
        caller.userId,
      );
      await audit(caller, ctx.organizationId, 'clone', created);
      return { uuid: created.metadata.name!, name: created.spec.name };
    },

    /** DELETE /session?sessions=: owner of every one (checked first), with their runs. */
    async remove(caller: Caller, ids: string[]) {
      const reached = [];
      for (const id of new Set(ids)) reached.push(await reachSession(db, deps.resources, caller, id, 'own'));
      for (const ctx of reached) {
        for (const run of runsOf(ctx.resources, ctx.object))
          await ctx.resources.runs.remove(run, caller.userId);
        await ctx.resources.sessions.remove(ctx.object, caller.userId);
        await audit(caller, ctx.organizationId, 'remove', ctx.object);
      }
      return { sessions: reached.map((r) => r.object.metadata.name!) };
    },

    /** GET /session/workflows: what a session may run (invalid ones flagged: the form greys them). */
    async workflows(caller: Caller) {
      const layer = await syncedLayer(deps.resources);
      const scope = await organizationScope(db, layer, caller);
      if (!scope) return [];
      const all = layer.workflows.list(scope.namespace);
      const kind = layer.workflows.kind;
      const viewer = await viewerOf(
        db,
        caller,
        scope.organizationId,
        all.map((w) => kind.access(w).owner),
      );
      return all
        .filter((w) => accessOf(viewer, kind.access(w)).view)
        .map((w) => ({
          uuid: w.metadata.name!,
          name: w.spec.name ?? '',
          version: w.spec.version ?? '1.0.0',
          valid: validityOf(w).valid,
        }))
        .sort((a, b) => a.name.localeCompare(b.name));
    },

    /** POST /session/instance: save the form (create or update), then start a run. */
    async instance(caller: Caller, body: SessionBody) {
      const saved = body.uuid
        ? await save(caller, body, await reachSession(db, deps.resources, caller, body.uuid, 'own'))
        : await save(caller, body);
      const layer = await syncedLayer(deps.resources);
      const run = await startRun(
        layer,
        saved,
        { userId: caller.userId, organizationId: saved.spec.organization ?? '' },
        'manual',
      );
      return { schedule_id: saved.metadata.name!, run_uuid: run.metadata.name! };
    },

    /** POST /session/fast: start a run of a saved session (its members may). */
    async fast(caller: Caller, id: string, workflowId: string) {
      const ctx = await reachSession(db, deps.resources, caller, id, 'use');
      if (ctx.object.spec.workflow !== workflowId)
        throw badRequest(`workflow_uuid: the session runs ${ctx.object.spec.workflow}`, 'invalid_session');
      await usableWorkflow(ctx, null, workflowId);
      const run = await startRun(
        ctx.resources,
        ctx.object,
        { userId: caller.userId, organizationId: ctx.organizationId },
        'manual',
      );
      return { schedule_id: ctx.object.metadata.name!, run_uuid: run.metadata.name! };
    },

    /** POST /session/:uuid/webhook: a new secret (the old one stops working); shown this once. */
    async rotateWebhook(caller: Caller, id: string) {
      const ctx = await reachSession(db, deps.resources, caller, id, 'own');
      const secret = randomBytes(24).toString('base64url');
      const next = await replaceOverStatus(
        ctx.resources.sessions,
        ctx.object,
        (current) => ({ ...current, spec: { ...current.spec, webhook: { secretHash: hashOf(secret) } } }),
        caller.userId,
      );
      await audit(caller, ctx.organizationId, 'webhook', next);
      return { secret, path: `/api/v0/hooks/session/${next.metadata.name}/${secret}` };
    },

    /** DELETE /session/:uuid/webhook: the webhook is off. */
    async removeWebhook(caller: Caller, id: string) {
      const ctx = await reachSession(db, deps.resources, caller, id, 'own');
      const spec = { ...ctx.object.spec };
      delete spec.webhook;
      if (ctx.object.spec.webhook) {
        const next = await replaceOverStatus(
          ctx.resources.sessions,
          ctx.object,
          (current) => ({ ...current, spec }),
          caller.userId,
        );
        await audit(caller, ctx.organizationId, 'webhook', next);
      }
      return { uuid: id };
    },

    /**
     * POST /hooks/session/:uuid/:secret (public): a run when the secret's hash matches, compared in
     * constant time. A wrong secret and an unknown session are the same 404.
     */
    async hook(id: string, secret: string) {
      const layer = await syncedLayer(deps.resources);
      const session = layer.sessions
        .list()
        .find((s) => s.metadata.name === id && s.metadata.namespace?.startsWith('sf-'));
      const stored = session?.spec.webhook?.secretHash ?? '';
      const given = Buffer.from(hashOf(secret), 'hex');
      const expected = Buffer.from(stored.length === 64 ? stored : '0'.repeat(64), 'hex');
      const match = timingSafeEqual(given, expected) && stored.length === 64;
      if (!session || !match || session.spec.suspend) throw notFound('Session');
      const organizationId = await layer.organizationOf(session);
      const run = await startRun(
        layer,
        session,
        { userId: null, organizationId: organizationId ?? '' },
        'event',
      );
      return { schedule_id: session.metadata.name!, run_uuid: run.metadata.name! };
    },
  };
}

export type SessionService = ReturnType<typeof createSessionService>;
