import type { SandboxSpec } from '@sandflow/crds';
import { fileTypeFromBuffer } from 'file-type';
import { badRequest } from '../errors.js';

/** The Sandbox form of spec 1 §3, as the route's schema lets it through (types checked, rules not). */
export interface SandboxForm {
  uuid?: string | undefined;
  image_id?: string | undefined;
  container_id?: string | undefined;
  name: string;
  version?: string | undefined;
  description?: string | undefined;
  entrypoint?: string | undefined;
  avatar?: string | undefined;
  file_avatar?:
    { file_name?: string | undefined; file_size?: number | undefined; file_body: string } | undefined;
  tags?: string[] | undefined;
  variables?: { name: string; value: string }[] | undefined;
  constraints?: { cpu: number; memory: number; disk: number } | undefined;
  mount_points?: { source: string; destination: string; checked?: boolean | undefined }[] | undefined;
  architecture?: 'amd64' | 'arm' | undefined;
  gpu_required?: boolean | undefined;
  permissions?:
    | Record<
        string,
        { read?: boolean | undefined; write?: boolean | undefined; execute?: boolean | undefined }
      >
    | undefined;
  source_image?: { image: string; version?: string | undefined } | undefined;
  visibility?:
    { type?: 'private' | 'public' | 'group' | undefined; locked?: boolean | undefined } | undefined;
  owner?: string | undefined;
  prettyOwner?: string | undefined;
}

const invalid = (field: string, message: string) => badRequest(`${field}: ${message}`, 'invalid_sandbox');

/** Spec 1 §5, sandbox name: letters, digits and underscore; the first other character is named. */
export function checkName(name: string): string {
  if (!name) throw invalid('name', 'Please, enter a valid name');
  const bad = /[^A-Za-z0-9_]/u.exec(name);
  if (bad) throw invalid('name', `Invalid character in name: ${bad[0]}`);
  if (name.length > 253) throw invalid('name', 'at most 253 characters');
  return name;
}

const VERSION = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export function checkVersion(version: string): string {
  if (!version) throw invalid('version', 'Please, enter a valid version');
  if (!VERSION.test(version)) throw invalid('version', 'Invalid sandbox version format');
  return version;
}

/** Variables with empty names are dropped; a named one needs a value (the popover's rule). */
export function checkVariables(
  variables: { name: string; value: string }[],
): { name: string; value: string }[] {
  const kept = variables.filter((v) => v.name !== '');
  variables.forEach((v, i) => {
    if (v.name !== '' && v.value === '')
      throw invalid(`variables.${i}.value`, "Can't save with empty values");
  });
  return kept.map((v) => ({ name: v.name, value: v.value }));
}

/** Constraints arrive in the spec's units (cpu millicores, MB) and are stored as whole numbers above 0. */
function checkConstraints(c: { cpu: number; memory: number; disk: number }) {
  const rounded = { cpu: Math.round(c.cpu), memory: Math.round(c.memory), disk: Math.round(c.disk) };
  for (const key of ['cpu', 'memory', 'disk'] as const)
    if (!(rounded[key] > 0)) throw invalid(`constraints.${key}`, 'Please, enter valid resources values');
  return rounded;
}

export const AVATAR_MAX_BYTES = 256 * 1024;
const AVATAR_TYPES = new Set(['image/png', 'image/jpeg']);

/** The uploaded avatar (base64, optionally a data URL) as a data URL; jpg and png only. */
export async function avatarDataUrl(body: string): Promise<string> {
  const base64 = body.replace(/^data:[^,]*,/, '');
  if (!/^[A-Za-z0-9+/\s]*={0,2}\s*$/.test(base64)) throw invalid('file_avatar.file_body', 'must be base64');
  const bytes = Buffer.from(base64, 'base64');
  if (bytes.length === 0) throw invalid('file_avatar.file_body', 'empty image');
  if (bytes.length > AVATAR_MAX_BYTES)
    throw invalid('file_avatar.file_body', `larger than ${AVATAR_MAX_BYTES / 1024} KB`);
  const type = await fileTypeFromBuffer(bytes);
  if (!type || !AVATAR_TYPES.has(type.mime))
    throw invalid('file_avatar', 'Invalid avatar: only .jpg, .jpeg and .png images');
  return `data:${type.mime};base64,${bytes.toString('base64')}`;
}

/** The bytes and type of a stored avatar data URL; null when there is none or it is not one. */
export function avatarBytes(avatar: string | undefined): { type: string; bytes: Buffer } | null {
  const match = avatar ? /^data:(image\/(?:png|jpeg));base64,(.*)$/s.exec(avatar) : null;
  return match ? { type: match[1]!, bytes: Buffer.from(match[2]!, 'base64') } : null;
}

/**
 * The spec a valid form describes (spec 1 §5 rules, with its messages, as 400s naming the field),
 * over `base` (the stored spec on update: what the form leaves out is kept). Group ids must be
 * the organization's (`groups`) or `_public`.
 */
export async function specFromForm(
  form: SandboxForm,
  base: SandboxSpec | undefined,
  groups: ReadonlySet<string>,
): Promise<SandboxSpec> {
  const spec: SandboxSpec = base ? structuredClone(base) : { name: '', entrypoint: '' };
  spec.name = checkName(form.name);
  spec.version = checkVersion(form.version ?? base?.version ?? '1.0.0');
  const entrypoint = form.entrypoint ?? base?.entrypoint ?? '';
  if (!entrypoint.trim()) throw invalid('entrypoint', 'Please, enter an entrypoint');
  spec.entrypoint = entrypoint;
  if (form.description !== undefined) spec.description = form.description;
  if (form.architecture !== undefined) spec.architecture = form.architecture;
  if (form.gpu_required !== undefined) spec.gpuRequired = form.gpu_required;
  if (form.constraints) spec.constraints = checkConstraints(form.constraints);
  if (form.tags) spec.tags = [...new Set(form.tags.filter((t) => t !== ''))];
  if (form.variables) spec.variables = checkVariables(form.variables);
  if (form.mount_points)
    spec.mountPoints = form.mount_points
      .filter((m) => m.checked !== false)
      .map((m, i) => {
        if (!m.source) throw invalid(`mount_points.${i}.source`, 'must not be empty');
        if (!m.destination.startsWith('/'))
          throw invalid(`mount_points.${i}.destination`, 'must be an absolute path');
        return { source: m.source, destination: m.destination };
      });
  if (form.permissions) {
    spec.permissions = {};
    for (const [group, p] of Object.entries(form.permissions)) {
      if (group !== '_public' && !groups.has(group)) throw invalid(`permissions.${group}`, 'unknown group');
      // Edit implies view (spec 1 §6).
      const permission = { read: !!(p.read || p.write), write: !!p.write, execute: !!p.execute };
      if (permission.read || permission.execute) spec.permissions[group] = permission;
    }
  }
  if (form.visibility || form.permissions) {
    const shared = Object.keys(spec.permissions ?? {});
    const derived = shared.includes('_public') ? 'public' : shared.length ? 'group' : 'private';
    spec.visibility = {
      type: form.visibility?.type ?? derived,
      locked: form.visibility?.locked ?? spec.visibility?.locked ?? false,
    };
  }
  if (form.image_id !== undefined) spec.image = { ...spec.image, id: form.image_id };
  if (!base && form.source_image?.image)
    spec.sourceImage = {
      image: form.source_image.image,
      ...(form.source_image.version ? { version: form.source_image.version } : {}),
    };
  if (form.file_avatar) spec.avatar = await avatarDataUrl(form.file_avatar.file_body);
  else if (form.avatar === '') delete spec.avatar;
  return spec;
}
