import type { Sandbox, SandboxSpec } from '@sandflow/crds';
import { KINDS, LABELS, sameJson } from '@sandflow/kube';
import type { Access } from './access.js';
import type { Mapping, ResourceKind, Visibility } from './types.js';

export type SandboxObject = Sandbox;

/** When the API last changed the object (the operator's status.updateTime wins when it writes one). */
export const UPDATED_ANNOTATION = 'sandflow.io/updated-at';

const ownerOf = (o: Sandbox) => o.spec.owner || o.metadata.labels?.[LABELS.owner] || undefined;

/** A sandbox is public when `_public` or its visibility says so (spec 1 §3: any public permission). */
export function visibilityOf(spec: SandboxSpec): { type: Visibility; locked: boolean } {
  return { type: spec.visibility?.type ?? 'private', locked: spec.visibility?.locked ?? false };
}

const ONLY: [string, keyof SandboxSpec | (keyof SandboxSpec)[]][] = [
  ['rename', 'name'],
  ['variables', 'variables'],
  ['visibility', ['visibility', 'permissions']],
];

export const SANDBOX_KIND: ResourceKind<Sandbox> = {
  kind: KINDS.sandbox,
  title: 'Sandbox',
  events: 'sandboxes',
  access: (o) => ({
    owner: ownerOf(o),
    permissions: o.spec.permissions ?? {},
    visibility: visibilityOf(o.spec),
  }),
  displayName: (o) => o.spec?.name || o.metadata.name!,
  changeAction(before, after) {
    if (!before) return 'update';
    const changed = new Set(
      [...new Set([...Object.keys(before), ...Object.keys(after)])].filter(
        (k) => !sameJson(before[k as keyof SandboxSpec], after[k as keyof SandboxSpec]),
      ),
    );
    for (const [action, fields] of ONLY) {
      const allowed = new Set<string>(Array.isArray(fields) ? fields : [fields]);
      if (changed.size > 0 && [...changed].every((k) => allowed.has(k))) return action;
    }
    return 'update';
  },
};

/** What the answer tells beside the object: who owns it, and what the caller may do. */
export interface SandboxView {
  organizationId: string;
  /** Display name of the owner (spec.author when the owner names no user). */
  author: string;
  access: Access;
}

/** The stored Sandbox of spec 1 §3 (snake_case, cpu in millicores, memory and disk in MB). */
export const SANDBOX_MAPPING: Mapping<Sandbox, SandboxView, ReturnType<typeof sandboxJson>> = {
  toJson: (o, view) => sandboxJson(o, view),
};

function sandboxJson(o: Sandbox, view: SandboxView) {
  const spec = o.spec;
  const status = (o.status ?? {}) as NonNullable<Sandbox['status']>;
  const created = o.metadata.creationTimestamp ?? new Date(0).toISOString();
  return {
    uuid: o.metadata.name!,
    name: spec.name ?? o.metadata.name!,
    version: spec.version ?? '1.0.0',
    description: spec.description ?? '',
    entrypoint: spec.entrypoint ?? '',
    architecture: spec.architecture ?? 'amd64',
    gpu_required: spec.gpuRequired ?? false,
    author_id: ownerOf(o) ?? '',
    author: view.author,
    avatar: spec.avatar ? `/api/v0/sandbox/${o.metadata.name}/avatar` : '',
    constraints: {
      cpu: spec.constraints?.cpu ?? 500,
      memory: spec.constraints?.memory ?? 512,
      disk: spec.constraints?.disk ?? 100,
    },
    creation_date: new Date(created).toISOString(),
    update_date: new Date(
      status.updateTime ?? o.metadata.annotations?.[UPDATED_ANNOTATION] ?? created,
    ).toISOString(),
    history: (status.history ?? []).map((h) => ({
      action: h.action,
      username: h.username ?? '',
      time: h.time ?? '',
    })),
    image_id: spec.image?.id ?? '',
    image_registry: spec.image?.registry ?? '',
    registry_name: spec.image?.registryName ?? '',
    image_ref: spec.image?.ref ?? '',
    organization_id: view.organizationId,
    mount_points: (spec.mountPoints ?? []).map((m) => ({ source: m.source, destination: m.destination })),
    permissions: Object.fromEntries(
      Object.entries(spec.permissions ?? {}).map(([group, p]) => [
        group,
        { read: !!(p.read || p.write), write: !!p.write, execute: !!p.execute },
      ]),
    ),
    visibility: visibilityOf(spec),
    user_access: {
      read: view.access.view,
      write: view.access.edit,
      execute: view.access.use,
      owner: view.access.own,
    },
    tags: spec.tags ?? [],
    variables: (spec.variables ?? []).map((v) => ({ name: v.name, value: v.value ?? '' })),
    source_image: { image: spec.sourceImage?.image ?? '', version: spec.sourceImage?.version ?? '' },
    phase: ((o.status as { phase?: string } | undefined)?.phase ?? 'Pending') as string,
  };
}

export type SandboxJson = ReturnType<typeof sandboxJson>;
