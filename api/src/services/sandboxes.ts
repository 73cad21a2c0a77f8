import { randomUUID } from 'node:crypto';
import type { SandboxSpec } from '@sandflow/crds';
import { LABELS } from '@sandflow/kube';
import type { Knex } from 'knex';
import { badRequest, conflict, forbidden, notFound, unavailable } from '../errors.js';
import {
  SANDBOX_MAPPING,
  UPDATED_ANNOTATION,
  accessOf,
  existingUsers,
  sandboxesOf,
  viewerOf,
  type Access,
  type Need,
  type Resources,
  type SandboxJson,
  type SandboxObject,
  type Viewer,
} from '../resources/index.js';
import type { Caller } from './callers.js';
import type { EventService } from './events.js';
import { avatarBytes, checkName, checkVariables, specFromForm, type SandboxForm } from './sandboxes-form.js';

const COLLATOR = new Intl.Collator('en', { numeric: true });
const plain = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export const IN_USE = "Sandbox can't be update because in use in external workflows.";
const SYNC_WAIT_MS = 10_000;

export const SORTS = ['name', 'version', 'owner', 'architecture', 'creation_date'] as const;
export interface ListQuery {
  page: number;
  size: 10 | 30 | 50;
  sort: (typeof SORTS)[number];
  order: 'asc' | 'desc';
  search?: string | undefined;
  mine?: boolean | undefined;
  visibility?: 'private' | 'public' | undefined;
  tag?: string | undefined;
}

/** What committing the builder's container gives (services/containers.ts). */
export interface ContainerCommitter {
  commit(
    caller: Caller,
    containerId: string,
    target: { organization: string; name: string; version: string },
  ): Promise<{ reference: string; digest: string }>;
}

/** Spec 1 §3: public when its visibility says so or any permission grants something. */
export const isPublic = (spec: SandboxSpec) =>
  spec.visibility?.type === 'public' ||
  Object.values(spec.permissions ?? {}).some((p) => p.read || p.write || p.execute);

export function createSandboxService(deps: {
  db: Knex;
  resources: Resources | null;
  events: EventService;
  containers: () => ContainerCommitter | undefined;
}) {
  const { db, events } = deps;

  async function layer(): Promise<Resources> {
    const resources = deps.resources;
    if (!resources)
      throw unavailable('kubernetes_unavailable', 'Sandboxes need a Kubernetes API, and none is configured.');
    if (!resources.isSynced()) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>(
        (resolve) => (timer = setTimeout(() => resolve('late'), SYNC_WAIT_MS)),
      );
      const outcome = await Promise.race([resources.synced, late]);
      clearTimeout(timer);
      if (outcome === 'late')
        throw unavailable('resources_not_synced', 'The sandbox cache is still loading, please retry.');
    }
    return resources;
  }

  /** The caller's organization, its namespace and the caller as a viewer of its objects. */
  async function scope(caller: Caller, owners: Iterable<string | undefined> = []) {
    const resources = await layer();
    const organizationId = caller.currentOrganizationId;
    const namespace = organizationId ? await resources.namespaceOf(organizationId) : null;
    if (!organizationId || !namespace) return null;
    const viewer = await viewerOf(db, caller, organizationId, owners);
    return { resources, organizationId, namespace, viewer };
  }

  /** One object the caller may `need`: another organization's, or one they cannot see, is a 404. */
  async function reach(caller: Caller, id: string, need: Need) {
    const resources = await layer();
    const organizationId = caller.currentOrganizationId;
    const namespace = organizationId ? await resources.namespaceOf(organizationId) : null;
    const object = namespace ? resources.sandboxes.get(namespace, id) : undefined;
    if (!object || !organizationId || !namespace) throw notFound('Sandbox');
    const access = SANDBOX_KIND_ACCESS(object);
    const viewer = await viewerOf(db, caller, organizationId, [access.owner]);
    const granted = accessOf(viewer, access);
    if (!granted.view) throw notFound('Sandbox');
    if (!granted[need]) throw forbidden(`Sandbox ${object.spec.name}: not allowed`);
    return { resources, organizationId, namespace, viewer, object, access: granted };
  }

  const SANDBOX_KIND_ACCESS = (o: SandboxObject) => deps.resources!.sandboxes.kind.access(o);

  async function toJson(o: SandboxObject, viewer: Viewer) {
    const subject = SANDBOX_KIND_ACCESS(o);
    const author = (await existingUsers(db, [subject.owner])).get(subject.owner ?? '') ?? o.spec.author ?? '';
    return SANDBOX_MAPPING.toJson(o, {
      organizationId: viewer.organizationId,
      author,
      access: accessOf(viewer, subject),
    });
  }

  /**
   * A namespace's sandboxes in creation order with what authorization reads of each, derived
   * once per change of the cache rather than on every GET /sandbox.
   */
  const preparedLists = new Map<
    string,
    {
      changes: number;
      all: SandboxObject[];
      subjects: ReturnType<typeof SANDBOX_KIND_ACCESS>[];
      /** What search looks in, lower case (the author's name aside: it lives in the database). */
      texts: string[];
      /** The distinct owners. */
      owners: string[];
    }
  >();
  function prepared(resources: Resources, namespace: string) {
    const changes = resources.sandboxes.changes();
    const hit = preparedLists.get(namespace);
    if (hit && hit.changes === changes) return hit;
    const all = resources.sandboxes
      .list(namespace)
      .map((o) => ({ o, created: o.metadata.creationTimestamp ?? '' }))
      .sort((a, b) => plain(a.created, b.created) || plain(a.o.metadata.name!, b.o.metadata.name!))
      .map((x) => x.o);
    const subjects = all.map((o) => SANDBOX_KIND_ACCESS(o));
    const entry = {
      changes,
      all,
      subjects,
      owners: [...new Set(subjects.map((s) => s.owner ?? ''))],
      texts: all.map((o) =>
        [o.spec.name, o.spec.description, o.spec.version, ...(o.spec.tags ?? [])].join('\n').toLowerCase(),
      ),
    };
    preparedLists.set(namespace, entry);
    return entry;
  }

  /** The groups of the organization (permission keys must name one). */
  async function groupsOf(organizationId: string): Promise<Set<string>> {
    return new Set(await db('groups').where({ organization_id: organizationId }).pluck('id'));
  }

  /** Workflows of the organization whose nodes run the sandbox. */
  function workflowsUsing(resources: Resources, namespace: string, id: string) {
    const key = `${namespace}/${id}`;
    return resources.workflows.list(namespace).filter((w) => sandboxesOf(w).includes(key));
  }

  /**
   * Spec 1 §8's 409: a change to a sandbox that workflows of other people run would change what
   * they run behind their back, so it is refused while any does (the owner's own workflows do
   * not block: they see the change in their own editor).
   */
  function refuseIfExternallyUsed(resources: Resources, namespace: string, object: SandboxObject) {
    const owner = SANDBOX_KIND_ACCESS(object).owner;
    const external = workflowsUsing(resources, namespace, object.metadata.name!).filter(
      (w) => (w.spec.owner || w.metadata.labels?.[LABELS.owner]) !== owner,
    );
    if (external.length) throw conflict(IN_USE);
  }

  function audit(caller: Caller, organizationId: string, action: string, o: SandboxObject) {
    return events.record(caller, {
      kind: 'sandboxes',
      action,
      subject: o.spec.name,
      organizationId,
      data: [{ id: o.metadata.name }],
    });
  }

  const stamped = (o: SandboxObject, spec: SandboxSpec): SandboxObject => ({
    ...o,
    metadata: {
      ...o.metadata,
      annotations: { ...o.metadata.annotations, [UPDATED_ANNOTATION]: new Date().toISOString() },
    },
    spec,
  });

  /** Commits the builder's container and points the spec at the pushed `ref@digest`. */
  async function commitInto(caller: Caller, organizationId: string, containerId: string, spec: SandboxSpec) {
    const containers = deps.containers();
    if (!containers) throw unavailable('builder_unavailable', 'The sandbox builder is not available here.');
    const { reference, digest } = await containers.commit(caller, containerId, {
      organization: organizationId,
      name: spec.name,
      version: spec.version ?? '1.0.0',
    });
    const ref = reference.includes('@') ? reference : `${reference}@${digest}`;
    spec.image = { ...spec.image, ref };
  }

  async function knownTags(caller: Caller): Promise<Set<string>> {
    return new Set(await db('tags').where({ user_id: caller.userId }).pluck('label'));
  }

  async function checkNewTags(caller: Caller, spec: SandboxSpec, before: SandboxSpec | undefined) {
    const added = (spec.tags ?? []).filter((t) => !(before?.tags ?? []).includes(t));
    if (added.length === 0) return;
    const known = await knownTags(caller);
    const unknown = added.find((t) => !known.has(t));
    if (unknown !== undefined) throw badRequest(`tags: unknown tag ${unknown}`, 'invalid_sandbox');
  }

  async function write(
    resources: Resources,
    caller: Caller,
    organizationId: string,
    action: string,
    next: SandboxObject,
    viewer: Viewer,
  ) {
    const saved = await resources.sandboxes.replace(next, caller.userId);
    await audit(caller, organizationId, action, saved);
    return toJson(saved, viewer);
  }

  return {
    /** GET /sandbox: the page of what the caller may see, filtered, searched and sorted on the server. */
    async list(caller: Caller, query: ListQuery) {
      const resources = await layer();
      const organizationId = caller.currentOrganizationId;
      const namespace = organizationId ? await resources.namespaceOf(organizationId) : null;
      const empty = { sandboxes: [], total: 0, page: query.page, size: query.size };
      if (!organizationId || !namespace) return empty;
      const { all, subjects, texts, owners } = prepared(resources, namespace);
      if (query.tag !== undefined && !(await knownTags(caller)).has(query.tag))
        throw badRequest('tag: unknown tag', 'invalid_query');
      const viewer = await viewerOf(db, caller, organizationId, owners);
      const search = query.search?.toLowerCase();
      const rows: { o: SandboxObject; access: Access; author: string }[] = [];
      all.forEach((o, i) => {
        const subject = subjects[i]!;
        const access = accessOf(viewer, subject);
        if (!access.view) return;
        if (query.mine && subject.owner !== caller.userId) return;
        if (query.visibility && (query.visibility === 'public') !== isPublic(o.spec)) return;
        if (query.tag !== undefined && !(o.spec.tags ?? []).includes(query.tag)) return;
        const author = viewer.names.get(subject.owner ?? '') ?? o.spec.author ?? '';
        if (search && !texts[i]!.includes(search) && !author.toLowerCase().includes(search)) return;
        rows.push({ o, access, author });
      });
      const keyOf = (r: (typeof rows)[number]): string => {
        switch (query.sort) {
          case 'name':
            return r.o.spec.name ?? '';
          case 'version':
            return r.o.spec.version ?? '';
          case 'owner':
            return r.author;
          case 'architecture':
            return r.o.spec.architecture ?? 'amd64';
          case 'creation_date':
            return r.o.metadata.creationTimestamp ?? '';
        }
      };
      const direction = query.order === 'asc' ? 1 : -1;
      // The prepared list is in creation order already; other keys sort through one collator.
      const sorted =
        query.sort === 'creation_date'
          ? direction === 1
            ? rows
            : rows.reverse()
          : rows
              .map((r) => ({ r, key: keyOf(r) }))
              .sort(
                (a, b) =>
                  direction *
                  (COLLATOR.compare(a.key, b.key) || plain(a.r.o.metadata.name!, b.r.o.metadata.name!)),
              )
              .map((k) => k.r);
      const page = sorted.slice(query.page * query.size, (query.page + 1) * query.size);
      return {
        sandboxes: page.map((r) =>
          SANDBOX_MAPPING.toJson(r.o, { organizationId, author: r.author, access: r.access }),
        ),
        total: rows.length,
        page: query.page,
        size: query.size,
      };
    },

    /** GET /sandbox?execution=true: what the caller may use in workflows, grouped by name. */
    async executable(caller: Caller) {
      const scoped = await scope(caller);
      if (!scoped) return { groups: [] };
      const objects = scoped.resources.sandboxes.list(scoped.namespace);
      const owners = objects.map((o) => SANDBOX_KIND_ACCESS(o).owner);
      const viewer = await viewerOf(db, caller, scoped.organizationId, owners);
      const byName = new Map<string, SandboxJson[]>();
      for (const o of objects) {
        const subject = SANDBOX_KIND_ACCESS(o);
        const access = accessOf(viewer, subject);
        if (!access.use) continue;
        const author = viewer.names.get(subject.owner ?? '') ?? o.spec.author ?? '';
        const json = SANDBOX_MAPPING.toJson(o, { organizationId: scoped.organizationId, author, access });
        byName.set(json.name, [...(byName.get(json.name) ?? []), json]);
      }
      return {
        groups: [...byName.entries()]
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([name, sandboxes]) => ({
            name,
            sandboxes: sandboxes.sort((a, b) => b.creation_date.localeCompare(a.creation_date)),
          })),
      };
    },

    /** Authorization of the table's object rules (route.ts): 404 unless visible, 403 unless allowed. */
    async authorize(caller: Caller, id: string, need: Need): Promise<Access> {
      return (await reach(caller, id, need)).access;
    },

    async get(caller: Caller, id: string) {
      const { object, viewer } = await reach(caller, id, 'view');
      return toJson(object, viewer);
    },

    async avatar(caller: Caller, id: string) {
      const { object } = await reach(caller, id, 'view');
      const avatar = avatarBytes(object.spec.avatar);
      if (!avatar) throw notFound('Avatar');
      return avatar;
    },

    /** POST /sandbox: validated in full before anything is committed or written. */
    async create(caller: Caller, form: SandboxForm) {
      const scoped = await scope(caller);
      if (!scoped) throw notFound('Organization');
      const { resources, organizationId, namespace, viewer } = scoped;
      const spec = await specFromForm(form, undefined, await groupsOf(organizationId));
      await checkNewTags(caller, spec, undefined);
      spec.owner = caller.userId;
      spec.author = caller.name;
      spec.organization = organizationId;
      if (form.container_id) await commitInto(caller, organizationId, form.container_id, spec);
      const now = new Date().toISOString();
      const created = await resources.sandboxes.create(
        {
          apiVersion: 'sandflow.io/v1alpha1',
          kind: 'Sandbox',
          metadata: {
            name: randomUUID(),
            namespace,
            labels: { [LABELS.organization]: organizationId, [LABELS.owner]: caller.userId },
            annotations: { [UPDATED_ANNOTATION]: now },
          },
          spec,
        },
        caller.userId,
      );
      await audit(caller, organizationId, 'create', created);
      return toJson(created, viewer);
    },

    /** PUT /sandbox/:uuid (edit permission; visibility and permissions: the owner's, or anyone's unless locked). */
    async update(caller: Caller, id: string, form: SandboxForm) {
      const { resources, organizationId, namespace, viewer, object, access } = await reach(
        caller,
        id,
        'edit',
      );
      const spec = await specFromForm(form, object.spec, await groupsOf(organizationId));
      await checkNewTags(caller, spec, object.spec);
      const sharing = (s: SandboxSpec) => JSON.stringify([s.permissions ?? {}, s.visibility ?? {}]);
      if (!access.own && object.spec.visibility?.locked && sharing(spec) !== sharing(object.spec))
        throw forbidden('visibility: locked; only the owner may change who sees the sandbox');
      // Refused before anything is committed to a registry: a saved container always changes the spec.
      if (form.container_id || JSON.stringify(spec) !== JSON.stringify(object.spec))
        refuseIfExternallyUsed(resources, namespace, object);
      if (form.container_id) await commitInto(caller, organizationId, form.container_id, spec);
      if (JSON.stringify(spec) === JSON.stringify(object.spec)) return toJson(object, viewer);
      return write(resources, caller, organizationId, 'update', stamped(object, spec), viewer);
    },

    async rename(caller: Caller, id: string, name: string) {
      const { resources, organizationId, namespace, viewer, object } = await reach(caller, id, 'own');
      checkName(name);
      if (name === object.spec.name) return toJson(object, viewer);
      refuseIfExternallyUsed(resources, namespace, object);
      return write(
        resources,
        caller,
        organizationId,
        'rename',
        stamped(object, { ...object.spec, name }),
        viewer,
      );
    },

    async variables(caller: Caller, id: string, variables: { name: string; value: string }[]) {
      const { resources, organizationId, namespace, viewer, object } = await reach(caller, id, 'own');
      const next = { ...object.spec, variables: checkVariables(variables) };
      if (JSON.stringify(next.variables) === JSON.stringify(object.spec.variables ?? []))
        return toJson(object, viewer);
      refuseIfExternallyUsed(resources, namespace, object);
      return write(resources, caller, organizationId, 'variables', stamped(object, next), viewer);
    },

    /** POST /sandbox/:uuid/clone: the caller's own copy (private, unless they own the original). */
    async clone(caller: Caller, id: string) {
      const { resources, organizationId, namespace, viewer, object, access } = await reach(
        caller,
        id,
        'view',
      );
      const spec: SandboxSpec = {
        ...structuredClone(object.spec),
        name: `${object.spec.name}_copy`.slice(0, 253),
        owner: caller.userId,
        author: caller.name,
        organization: organizationId,
      };
      if (!access.own) {
        spec.permissions = {};
        spec.visibility = { type: 'private', locked: false };
      }
      const created = await resources.sandboxes.create(
        {
          apiVersion: 'sandflow.io/v1alpha1',
          kind: 'Sandbox',
          metadata: {
            name: randomUUID(),
            namespace,
            labels: { [LABELS.organization]: organizationId, [LABELS.owner]: caller.userId },
            annotations: { [UPDATED_ANNOTATION]: new Date().toISOString() },
          },
          spec,
        },
        caller.userId,
      );
      await audit(caller, organizationId, 'clone', created);
      return toJson(created, viewer);
    },

    /**
     * DELETE /sandbox: owner only, all checked before any is deleted. Without force, the ones
     * workflows still run are kept and come back with those workflows; with force they go too,
     * and the operator marks those workflows invalid (the sandbox no longer exists).
     */
    async remove(caller: Caller, ids: string[], force: boolean) {
      const reached = [];
      for (const id of new Set(ids)) reached.push(await reach(caller, id, 'own'));
      const deleted: string[] = [];
      const workflows = new Map<string, { uuid: string; name: string; sandboxes: string[] }>();
      for (const { resources, organizationId, namespace, object } of reached) {
        const using = workflowsUsing(resources, namespace, object.metadata.name!);
        for (const w of using) {
          const entry = workflows.get(w.metadata.name!) ?? {
            uuid: w.metadata.name!,
            name: w.spec.name,
            sandboxes: [],
          };
          entry.sandboxes.push(object.metadata.name!);
          workflows.set(entry.uuid, entry);
        }
        if (using.length && !force) continue;
        await resources.sandboxes.remove(object, caller.userId);
        await audit(caller, organizationId, 'remove', object);
        deleted.push(object.metadata.name!);
      }
      return { deleted_sandbox: deleted, workflows: [...workflows.values()] };
    },
  };
}

export type SandboxService = ReturnType<typeof createSandboxService>;
