import { randomUUID } from 'node:crypto';
import type { Sandbox, WorkflowSpec } from '@sandflow/crds';
import { DEFAULTS, WORKFLOW_MESSAGES } from '@sandflow/crds';
import { ANNOTATIONS, LABELS } from '@sandflow/kube';
import type { Knex } from 'knex';
import { badRequest, forbidden, notFound, unavailable } from '../errors.js';
import {
  accessOf,
  existingUsers,
  viewerOf,
  type Access,
  type Need,
  type Resources,
  type Viewer,
  type WorkflowObject,
} from '../resources/index.js';
import type { Caller } from './callers.js';
import type { EventService } from './events.js';
import {
  checkSave,
  checkVariables,
  graphOf,
  graphSpec,
  sandboxEntriesOf,
  validityOf,
  type GraphBody,
  type GraphVariable,
} from './workflows-graph.js';

const COLLATOR = new Intl.Collator('en', { numeric: true });
const SYNC_WAIT_MS = 10_000;
const VERSION = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** A viewer's groups as the owner-groups annotation holds them. */
const groupList = (viewer: { groups: ReadonlySet<string> }) => [...viewer.groups].sort().join(',');
export const WORKFLOW_SORTS = ['name', 'version', 'owner', 'creation_date'] as const;
export type WorkflowVisibility = 'private' | 'public' | 'group';

export interface WorkflowListQuery {
  page: number;
  size: 15 | 30 | 50;
  sort: (typeof WORKFLOW_SORTS)[number];
  order: 'asc' | 'desc';
  search?: string | undefined;
  mine?: boolean | undefined;
  visibility?: WorkflowVisibility | undefined;
  tag?: string | undefined;
  graph?: boolean | undefined;
}

/** The editor's Save body: metadata and the graph of spec 2 §3. */
export interface WorkflowBody extends GraphBody {
  name: string;
  version?: string | undefined;
  tags?: string[] | undefined;
  visibility?: VisibilityBody | undefined;
}

export interface VisibilityBody {
  type: WorkflowVisibility;
  groups?: string[] | undefined;
}

/** DD-MM-YYYY HH:mm, the console's date format (spec 2 §9), for the search box. */
const shown = (iso: string) => {
  const d = new Date(iso);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getUTCDate())}-${p(d.getUTCMonth() + 1)}-${d.getUTCFullYear()} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}`;
};

/** Sets or removes an optional field, so an absent one stays absent in the CR. */
function optional<K extends keyof WorkflowSpec>(spec: WorkflowSpec, key: K, value: WorkflowSpec[K]) {
  const empty = value === undefined || (Array.isArray(value) && value.length === 0);
  if (empty) delete spec[key];
  else spec[key] = value;
}

export function createWorkflowService(deps: { db: Knex; resources: Resources | null; events: EventService }) {
  const { db, events } = deps;

  async function layer(): Promise<Resources> {
    const resources = deps.resources;
    if (!resources)
      throw unavailable('kubernetes_unavailable', 'Workflows need a Kubernetes API, and none is configured.');
    if (!resources.isSynced()) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>(
        (resolve) => (timer = setTimeout(() => resolve('late'), SYNC_WAIT_MS)),
      );
      const outcome = await Promise.race([resources.synced, late]);
      clearTimeout(timer);
      if (outcome === 'late')
        throw unavailable('resources_not_synced', 'The workflow cache is still loading, please retry.');
    }
    return resources;
  }

  async function scope(caller: Caller) {
    const resources = await layer();
    const organizationId = caller.currentOrganizationId;
    const namespace = organizationId ? await resources.namespaceOf(organizationId) : null;
    if (!organizationId || !namespace) return null;
    return { resources, organizationId, namespace };
  }

  /** One workflow the caller may `need`: another organization's, or one they cannot see, is a 404. */
  async function reach(caller: Caller, id: string, need: Need) {
    const scoped = await scope(caller);
    const object = scoped?.resources.workflows.get(scoped.namespace, id);
    if (!scoped || !object) throw notFound('Workflow');
    const subject = scoped.resources.workflows.kind.access(object);
    const viewer = await viewerOf(db, caller, scoped.organizationId, [subject.owner]);
    const access = accessOf(viewer, subject);
    if (!access.view) throw notFound('Workflow');
    if (!access[need]) throw forbidden(`Workflow ${object.spec.name}: not allowed`);
    return { ...scoped, object, viewer, access };
  }

  /** The sandboxes a save may name: those of the organization the caller may see or use. */
  async function sandboxResolver(
    resources: Resources,
    namespace: string,
    caller: Caller,
    organizationId: string,
  ) {
    const all = resources.sandboxes.list(namespace);
    const kind = resources.sandboxes.kind;
    const viewer = await viewerOf(
      db,
      caller,
      organizationId,
      all.map((s) => kind.access(s).owner),
    );
    const byId = new Map<string, Sandbox>();
    for (const s of all) {
      const access = accessOf(viewer, kind.access(s));
      if (access.view || access.use) byId.set(s.metadata.name!, s);
    }
    return {
      resolve: (id: string) => byId.get(id),
      ownerOf: (id: string) => {
        const s = byId.get(id);
        return s ? kind.access(s).owner : undefined;
      },
    };
  }

  /** Owners of the sandboxes of the namespace, for nodes that do not carry theirs. */
  function sandboxOwners(resources: Resources, namespace: string) {
    return (node: { sandbox?: string | undefined; sandboxNamespace?: string | undefined }) => {
      if (!node.sandbox) return undefined;
      const s = resources.sandboxes.get(node.sandboxNamespace ?? namespace, node.sandbox);
      return s ? resources.sandboxes.kind.access(s).owner : undefined;
    };
  }

  const visibilityJson = (spec: WorkflowSpec) => ({
    type: spec.visibility?.type ?? 'private',
    groups: spec.visibility?.type === 'group' ? (spec.visibility.groups ?? []) : [],
  });
  const accessJson = (a: Access) => ({ read: a.view, write: a.edit, execute: a.use, owner: a.own });
  const ownerOfWorkflow = (resources: Resources, o: WorkflowObject) =>
    resources.workflows.kind.access(o).owner;

  /** Spec 2 §3 Workflow (list item), plus the caller's access. */
  function listItem(resources: Resources, o: WorkflowObject, prettyOwner: string, access: Access) {
    const validity = validityOf(o);
    return {
      uuid: o.metadata.name!,
      name: o.spec.name ?? '',
      creationDate: new Date(o.metadata.creationTimestamp ?? 0).toISOString(),
      tags: o.spec.tags ?? [],
      owner: ownerOfWorkflow(resources, o) ?? '',
      prettyOwner,
      visibility: visibilityJson(o.spec),
      sandboxes: (o.spec.nodes ?? []).map((n) => ({
        sandbox_name: n.name,
        variables: (n.variables ?? []).map((v) => ({ name: v.name, value: v.value ?? '' })),
      })),
      version: o.spec.version ?? DEFAULTS.version,
      valid: validity.valid,
      user_access: accessJson(access),
    };
  }

  /** Spec 2 §3 Workflow (saved): the graph, its sandboxes, and validity as the operator saw it. */
  function saved(
    resources: Resources,
    namespace: string,
    o: WorkflowObject,
    prettyOwner: string,
    access: Access,
  ) {
    const owners = sandboxOwners(resources, namespace);
    const validity = validityOf(o);
    return {
      ...listItem(resources, o, prettyOwner, access),
      ...graphOf(o.spec, owners),
      sandboxes: sandboxEntriesOf(o.spec, owners),
      validation_message: validity.message,
      validation_errors: validity.errors,
    };
  }

  async function prettyOwnerOf(resources: Resources, o: WorkflowObject) {
    const owner = ownerOfWorkflow(resources, o);
    return (await existingUsers(db, [owner])).get(owner ?? '') ?? '';
  }

  async function answer(resources: Resources, namespace: string, o: WorkflowObject, viewer: Viewer) {
    const access = accessOf(viewer, resources.workflows.kind.access(o));
    return saved(resources, namespace, o, await prettyOwnerOf(resources, o), access);
  }

  function audit(caller: Caller, organizationId: string, action: string, o: WorkflowObject) {
    return events.record(caller, {
      kind: 'workflows',
      action,
      subject: o.spec.name,
      organizationId,
      data: [{ id: o.metadata.name }],
    });
  }

  async function checkTags(caller: Caller, tags: string[], before: string[]) {
    const added = tags.filter((t) => !before.includes(t));
    if (added.length === 0) return;
    const known = new Set(await db('tags').where({ user_id: caller.userId }).pluck('label'));
    const unknown = added.find((t) => !known.has(t));
    if (unknown !== undefined) throw badRequest(`tags: unknown tag ${unknown}`, 'invalid_workflow');
  }

  /**
   * Spec 2 §2: a group visibility names groups of the caller's own; groups it named already
   * (kubectl may have set any) may stay.
   */
  function checkVisibility(
    visibility: VisibilityBody,
    viewer: Viewer,
    previous: WorkflowSpec | undefined,
  ): WorkflowSpec['visibility'] {
    if (visibility.type !== 'group') return { type: visibility.type };
    const groups = [...new Set(visibility.groups ?? [])];
    const kept = new Set(previous?.visibility?.groups ?? []);
    const foreign = groups.find((g) => !viewer.groups.has(g) && !kept.has(g));
    if (foreign !== undefined)
      throw badRequest(`visibility.groups: ${foreign} is not one of your groups`, 'invalid_workflow');
    return { type: 'group', groups };
  }

  /** The spec a Save writes: the previous one's other fields kept, the body's checked and applied. */
  async function specFromBody(
    caller: Caller,
    body: WorkflowBody,
    ctx: { resources: Resources; namespace: string; organizationId: string; viewer: Viewer },
    previous: WorkflowSpec | undefined,
  ): Promise<WorkflowSpec> {
    const version = body.version ?? previous?.version ?? DEFAULTS.version;
    if (!VERSION.test(version))
      throw badRequest('version: Invalid workflow version format', 'invalid_workflow');
    const sandboxes = await sandboxResolver(ctx.resources, ctx.namespace, caller, ctx.organizationId);
    const spec: WorkflowSpec = { ...structuredClone(previous ?? { name: '' }), name: body.name, version };
    const graph = graphSpec(body, previous, ctx.namespace, sandboxes.ownerOf);
    optional(spec, 'nodes', graph.nodes);
    optional(spec, 'switches', graph.switches);
    optional(spec, 'edges', graph.edges);
    if (body.tags !== undefined) {
      await checkTags(caller, body.tags, previous?.tags ?? []);
      optional(spec, 'tags', [...new Set(body.tags)]);
    }
    if (body.visibility !== undefined)
      spec.visibility = checkVisibility(body.visibility, ctx.viewer, previous);
    else spec.visibility ??= { type: 'private' };
    checkSave(spec, sandboxes.resolve);
    return spec;
  }

  function newObject(
    namespace: string,
    organizationId: string,
    owner: string,
    spec: WorkflowSpec,
    ownerGroups: string,
  ): WorkflowObject {
    return {
      apiVersion: 'sandflow.io/v1alpha1',
      kind: 'Workflow',
      metadata: {
        name: randomUUID(),
        namespace,
        labels: { [LABELS.organization]: organizationId, [LABELS.owner]: owner },
        annotations: { [ANNOTATIONS.ownerGroups]: ownerGroups },
      },
      spec,
    };
  }

  async function write(
    caller: Caller,
    ctx: Awaited<ReturnType<typeof reach>>,
    action: string,
    spec: WorkflowSpec,
  ) {
    if (JSON.stringify(spec) === JSON.stringify(ctx.object.spec))
      return answer(ctx.resources, ctx.namespace, ctx.object, ctx.viewer);
    // The owner's saves refresh the groups the operator checks sandbox permissions with.
    const metadata =
      spec.owner === caller.userId
        ? {
            ...ctx.object.metadata,
            annotations: {
              ...ctx.object.metadata.annotations,
              [ANNOTATIONS.ownerGroups]: groupList(ctx.viewer),
            },
          }
        : ctx.object.metadata;
    const next = await ctx.resources.workflows.replace({ ...ctx.object, metadata, spec }, caller.userId);
    await audit(caller, ctx.organizationId, action, next);
    return answer(ctx.resources, ctx.namespace, next, ctx.viewer);
  }

  return {
    /** Route-level object authorization (authorization.ts `object`). */
    async authorize(caller: Caller, id: string, need: Need): Promise<Access> {
      return (await reach(caller, id, need)).access;
    },

    /** GET /workflow: the page of what the caller may see, searched, filtered and sorted here. */
    async list(caller: Caller, query: WorkflowListQuery) {
      const empty = { workflows: [], total: 0, page: query.page, size: query.size };
      const scoped = await scope(caller);
      if (!scoped) return empty;
      const { resources, organizationId, namespace } = scoped;
      if (query.tag !== undefined) {
        const known = await db('tags').where({ user_id: caller.userId, label: query.tag }).first('label');
        if (!known) throw badRequest('tag: unknown tag', 'invalid_query');
      }
      const all = resources.workflows.list(namespace);
      const owners = all.map((o) => ownerOfWorkflow(resources, o));
      const [viewer, names] = await Promise.all([
        viewerOf(db, caller, organizationId, owners),
        existingUsers(db, owners),
      ]);
      const search = query.search?.toLowerCase();
      const rows = all
        .map((o) => {
          const subject = resources.workflows.kind.access(o);
          return {
            o,
            subject,
            access: accessOf(viewer, subject),
            owner: names.get(subject.owner ?? '') ?? '',
          };
        })
        .filter(({ o, subject, access }) => {
          if (!access.view) return false;
          if (query.mine && subject.owner !== caller.userId) return false;
          if (query.visibility && subject.visibility.type !== query.visibility) return false;
          if (query.tag !== undefined && !(o.spec.tags ?? []).includes(query.tag)) return false;
          if (search) {
            const created = new Date(o.metadata.creationTimestamp ?? 0).toISOString();
            const text = [o.metadata.name, o.spec.name, created, shown(created), ...(o.spec.tags ?? [])]
              .join('\n')
              .toLowerCase();
            if (!text.includes(search)) return false;
          }
          return true;
        });
      const key = (r: (typeof rows)[number]) =>
        query.sort === 'name'
          ? (r.o.spec.name ?? '')
          : query.sort === 'version'
            ? (r.o.spec.version ?? DEFAULTS.version)
            : query.sort === 'owner'
              ? r.owner
              : (r.o.metadata.creationTimestamp ?? '');
      const direction = query.order === 'asc' ? 1 : -1;
      const sorted = rows
        .map((r) => ({ r, key: key(r) }))
        .sort(
          (a, b) =>
            direction *
            (COLLATOR.compare(a.key, b.key) || COLLATOR.compare(a.r.o.metadata.name!, b.r.o.metadata.name!)),
        )
        .map((k) => k.r);
      const page = sorted.slice(query.page * query.size, (query.page + 1) * query.size);
      const nodeOwners = sandboxOwners(resources, namespace);
      return {
        workflows: page.map((r) =>
          query.graph
            ? {
                uuid: r.o.metadata.name!,
                name: r.o.spec.name ?? '',
                version: r.o.spec.version ?? DEFAULTS.version,
                tags: r.o.spec.tags ?? [],
                valid: validityOf(r.o).valid,
                ...graphOf(r.o.spec, nodeOwners),
              }
            : listItem(resources, r.o, r.owner, r.access),
        ),
        total: rows.length,
        page: query.page,
        size: query.size,
      };
    },

    async get(caller: Caller, id: string) {
      const { resources, namespace, object, viewer } = await reach(caller, id, 'view');
      return answer(resources, namespace, object, viewer);
    },

    /** POST /workflow: checked in full (spec 2 §5) before anything is written. */
    async create(caller: Caller, body: WorkflowBody) {
      const scoped = await scope(caller);
      if (!scoped) throw notFound('Organization');
      const { resources, organizationId, namespace } = scoped;
      const viewer = await viewerOf(db, caller, organizationId, [caller.userId]);
      const spec = await specFromBody(caller, body, { ...scoped, viewer }, undefined);
      spec.owner = caller.userId;
      spec.organization = organizationId;
      const created = await resources.workflows.create(
        newObject(namespace, organizationId, caller.userId, spec, groupList(viewer)),
        caller.userId,
      );
      await audit(caller, organizationId, 'create', created);
      return answer(resources, namespace, created, viewer);
    },

    /** PUT /workflow/:uuid: the whole graph, owner only; an unchanged body writes nothing. */
    async update(caller: Caller, id: string, body: WorkflowBody) {
      const ctx = await reach(caller, id, 'edit');
      const spec = await specFromBody(caller, body, ctx, ctx.object.spec);
      return write(caller, ctx, 'update', spec);
    },

    /** PUT /workflow/:uuid/name: an unchanged name writes nothing, an empty one is refused. */
    async rename(caller: Caller, id: string, name: string) {
      const ctx = await reach(caller, id, 'own');
      if (!name) throw badRequest(`name: ${WORKFLOW_MESSAGES.emptyName}`, 'invalid_workflow');
      return write(caller, ctx, 'rename', { ...ctx.object.spec, name });
    },

    /** PUT /workflow/:uuid/variables/:sandbox: one node's variables (its id, else its name). */
    async variables(caller: Caller, id: string, sandbox: string, variables: GraphVariable[]) {
      const ctx = await reach(caller, id, 'own');
      const nodes = ctx.object.spec.nodes ?? [];
      const byId = nodes.findIndex((n) => n.id === sandbox);
      const at = byId >= 0 ? byId : nodes.findIndex((n) => n.name === sandbox);
      if (at < 0) throw notFound(`Sandbox ${sandbox} of the workflow`);
      checkVariables(variables);
      const node = { ...nodes[at]! };
      if (variables.length) node.variables = variables.map((v) => ({ name: v.name, value: v.value }));
      else delete node.variables;
      return write(caller, ctx, 'variables', {
        ...ctx.object.spec,
        nodes: nodes.map((n, i) => (i === at ? node : n)),
      });
    },

    /** PUT /workflow/:uuid/visibility: saved at once (spec 2 §4). */
    async visibility(caller: Caller, id: string, visibility: VisibilityBody) {
      const ctx = await reach(caller, id, 'own');
      return write(caller, ctx, 'visibility', {
        ...ctx.object.spec,
        visibility: checkVisibility(visibility, ctx.viewer, ctx.object.spec),
      });
    },

    /** POST /workflow/:uuid/clone: the caller's own copy, private unless they own the original. */
    async clone(caller: Caller, id: string) {
      const ctx = await reach(caller, id, 'view');
      const spec: WorkflowSpec = {
        ...structuredClone(ctx.object.spec),
        name: `${ctx.object.spec.name}_copy`,
        owner: caller.userId,
        organization: ctx.organizationId,
      };
      if (!ctx.access.own) spec.visibility = { type: 'private' };
      const created = await ctx.resources.workflows.create(
        newObject(ctx.namespace, ctx.organizationId, caller.userId, spec, groupList(ctx.viewer)),
        caller.userId,
      );
      await audit(caller, ctx.organizationId, 'clone', created);
      return answer(ctx.resources, ctx.namespace, created, ctx.viewer);
    },

    /** DELETE /workflow: owner of every one, all checked before any is deleted. */
    async remove(caller: Caller, ids: string[]) {
      const reached = [];
      for (const id of new Set(ids)) reached.push(await reach(caller, id, 'own'));
      for (const { resources, organizationId, object } of reached) {
        await resources.workflows.remove(object, caller.userId);
        await audit(caller, organizationId, 'remove', object);
      }
      return { workflows: reached.map((r) => r.object.metadata.name!) };
    },
  };
}

export type WorkflowService = ReturnType<typeof createWorkflowService>;
