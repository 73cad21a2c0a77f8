import type { KubeConfig } from '@kubernetes/client-node';
import { Kube, LABELS, type EventType } from '@sandflow/kube';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { EventService } from '../services/events.js';
import type { RealtimePublisher } from '../services/notifications.js';
import { createChangeFeed } from './changes.js';
import { SANDBOX_KIND, type SandboxObject } from './sandbox-kind.js';
import { createResourceStore, type ResourceStore } from './store.js';
import { RUN_KIND, SESSION_KIND, type RunObject, type SessionObject } from './session-kind.js';
import type { KubeObject } from './types.js';
import { WORKFLOW_KIND, type WorkflowObject } from './workflow-kind.js';

export { accessOf, viewerOf, existingUsers, type Access, type Need, type Viewer } from './access.js';
export { CHANGE_ANNOTATION, type ResourceStore } from './store.js';
export type { AccessSubject, KubeObject, Mapping, ResourceKind } from './types.js';
export {
  SANDBOX_KIND,
  SANDBOX_MAPPING,
  UPDATED_ANNOTATION,
  type SandboxJson,
  type SandboxObject,
} from './sandbox-kind.js';
export { WORKFLOW_KIND, sandboxesOf, type WorkflowObject } from './workflow-kind.js';
export { RUN_KIND, SESSION_KIND, type RunObject, type SessionObject } from './session-kind.js';

/** The resource access layer: one store per kind, all synced before the API says it is ready. */
export interface Resources {
  sandboxes: ResourceStore<SandboxObject>;
  workflows: ResourceStore<WorkflowObject>;
  sessions: ResourceStore<SessionObject>;
  runs: ResourceStore<RunObject>;
  /** Every change of a Run the watch sees, status included, whoever made it; returns the unsubscribe. */
  onRunEvent(listener: (type: EventType, run: RunObject) => void): () => void;
  /** Settles once every cache holds a full list. */
  readonly synced: Promise<void>;
  /** Whether every cache has synced (GET /readyz). */
  isSynced(): boolean;
  /** The namespace of an organization's objects (`sf-<slug>`); null when it does not exist. */
  namespaceOf(organizationId: string): Promise<string | null>;
  /** The organization an object belongs to: its label, else its namespace's. */
  organizationOf(object: KubeObject): Promise<string | null>;
  stop(): Promise<void>;
}

export function createResources(deps: {
  kubeConfig: KubeConfig;
  db: Knex;
  logger: Logger;
  events: EventService;
  realtime: () => RealtimePublisher | undefined;
}): Resources {
  const kube = new Kube(deps.kubeConfig);
  const slugs = new Map<string, string>();
  const byNamespace = new Map<string, { id: string | null; at: number }>();

  async function namespaceOf(organizationId: string) {
    let slug = slugs.get(organizationId);
    if (!slug) {
      const row = await deps.db('organizations').where({ id: organizationId }).first('slug');
      if (!row) return null;
      slug = row.slug as string; // a slug never changes: renaming an organization keeps its namespace
      slugs.set(organizationId, slug);
    }
    return `sf-${slug}`;
  }

  async function organizationOf(object: KubeObject) {
    const labelled = object.metadata.labels?.[LABELS.organization];
    if (labelled) return labelled;
    const namespace = object.metadata.namespace ?? '';
    const known = byNamespace.get(namespace);
    if (known && Date.now() - known.at < 60_000) return known.id;
    const row = await deps
      .db('organizations')
      .where({ slug: namespace.slice('sf-'.length) })
      .first('id');
    byNamespace.set(namespace, { id: row?.id ?? null, at: Date.now() });
    return row?.id ?? null;
  }

  const feed = createChangeFeed({ ...deps, organizationOf });
  const sandboxes = createResourceStore<SandboxObject>(kube, SANDBOX_KIND, {
    logger: deps.logger,
    onChange: (change) => feed.handle(SANDBOX_KIND, change),
  });
  const workflows = createResourceStore<WorkflowObject>(kube, WORKFLOW_KIND, {
    logger: deps.logger,
    onChange: (change) => feed.handle(WORKFLOW_KIND, change),
  });
  const sessions = createResourceStore<SessionObject>(kube, SESSION_KIND, {
    logger: deps.logger,
    onChange: (change) => feed.handle(SESSION_KIND, change),
  });
  const runListeners = new Set<(type: EventType, run: RunObject) => void>();
  const runs = createResourceStore<RunObject>(kube, RUN_KIND, {
    logger: deps.logger,
    onChange: (change) => feed.handle(RUN_KIND, change),
    onEvent: (type, run) => {
      for (const listener of runListeners) listener(type, run);
    },
  });
  const stores = [sandboxes, workflows, sessions, runs] as unknown as ResourceStore<KubeObject>[];
  let ready = false;
  const synced = Promise.all(stores.map((s) => s.synced)).then(() => {
    ready = true;
  });

  return {
    sandboxes,
    workflows,
    sessions,
    runs,
    onRunEvent(listener) {
      runListeners.add(listener);
      return () => runListeners.delete(listener);
    },
    synced,
    isSynced: () => ready,
    namespaceOf,
    organizationOf,
    async stop() {
      await Promise.all(stores.map((s) => s.stop()));
    },
  };
}
