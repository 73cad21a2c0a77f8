// The sandbox form (spec 1 §3 'Sandbox (form)') and the body its Save sends.
import {
  DEFAULT_RESOURCES,
  DEFAULT_VERSION,
  isPublic,
  PUBLIC_GROUP,
  savedVariables,
  sentResources,
  shownResources,
  type Resource,
} from './rules';
import type { Architecture, Permissions, Sandbox, SandboxBody, Variable, Visibility } from './types';

export interface FileAvatar {
  file_name: string;
  file_size: number;
  file_body: string;
}

export interface SandboxForm {
  name: string;
  version: string;
  description: string;
  entrypoint: string;
  tags: string[];
  variables: Variable[];
  /** Cores and GB, as shown. */
  resources: Record<Resource, number>;
  gpu_required: boolean;
  architecture: Architecture;
  /** Destination by source, for the organization's mount points that are ticked. */
  mounts: Record<string, string>;
  permissions: Permissions;
  locked: boolean;
  file_avatar?: FileAvatar;
}

export const emptyForm = (): SandboxForm => ({
  name: '',
  version: DEFAULT_VERSION,
  description: '',
  entrypoint: '',
  tags: [],
  variables: [],
  resources: { ...DEFAULT_RESOURCES },
  gpu_required: false,
  architecture: 'amd64',
  mounts: {},
  permissions: {},
  locked: false,
});

export const formOf = (sandbox: Sandbox): SandboxForm => ({
  name: sandbox.name,
  version: sandbox.version,
  description: sandbox.description,
  entrypoint: sandbox.entrypoint,
  tags: sandbox.tags,
  variables: sandbox.variables,
  resources: shownResources(sandbox.constraints),
  gpu_required: sandbox.gpu_required,
  architecture: sandbox.architecture,
  mounts: Object.fromEntries(sandbox.mount_points.map((m) => [m.source, m.destination])),
  permissions: sandbox.permissions,
  locked: sandbox.visibility?.locked ?? false,
});

/** Public when the public pseudo-group has a right, group when only groups have some. */
export function visibilityOf(permissions: Permissions, locked: boolean): Visibility {
  const { [PUBLIC_GROUP]: everybody, ...groups } = permissions;
  const type = everybody && isPublic({ everybody }) ? 'public' : isPublic(groups) ? 'group' : 'private';
  return { type, locked };
}

/** The body of POST /sandbox (`source` given) or PUT /sandbox/{uuid}. */
export function bodyOf(
  form: SandboxForm,
  context: {
    uuid?: string;
    containerId?: string;
    imageId?: string;
    organizationMounts: string[];
    source?: { image: string; version: string };
  },
): SandboxBody {
  return {
    ...(context.uuid ? { uuid: context.uuid } : {}),
    ...(context.containerId ? { container_id: context.containerId } : {}),
    ...(context.imageId ? { image_id: context.imageId } : {}),
    name: form.name,
    version: form.version,
    description: form.description,
    entrypoint: form.entrypoint.trim(),
    tags: form.tags,
    variables: savedVariables(form.variables),
    constraints: sentResources(form.resources),
    mount_points: context.organizationMounts.map((source) => ({
      source,
      destination: form.mounts[source] ?? source,
      checked: source in form.mounts,
    })),
    architecture: form.architecture,
    gpu_required: form.gpu_required,
    permissions: form.permissions,
    ...(context.source ? { source_image: context.source } : {}),
    visibility: visibilityOf(form.permissions, form.locked),
    ...(form.file_avatar ? { file_avatar: form.file_avatar } : {}),
  };
}

/** A chosen avatar as the form sends it (base64 body). */
export async function fileAvatarOf(file: File): Promise<FileAvatar> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return { file_name: file.name, file_size: file.size, file_body: btoa(binary) };
}
