// What a container takes from the Pod's Secrets and ConfigMaps and from the Pod itself, as the
// kubelet does it: `env[].valueFrom` (secretKeyRef, configMapKeyRef, fieldRef, resourceFieldRef),
// `envFrom` (secretRef, configMapRef, prefix) and the files of secret and configMap volumes
// (items, defaultMode, optional). A missing Secret, ConfigMap or key that is not optional is a
// MissingSourceError (the container waits with CreateContainerConfigError, the kubelet tries
// again); a field the kubelet cannot honour is a ContainerConfigError naming it.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { KubeObject } from '../types.js';
import { HOST_IP } from './status.js';

export type SourceKind = 'Secret' | 'ConfigMap';

/**
 * The keys of a Secret (decoded) or ConfigMap of the Pod's namespace, if it exists; a ConfigMap's
 * binaryData only for `files` (a volume), never for the environment, as the kubelet does.
 */
export type Lookup = (kind: SourceKind, name: string, files?: boolean) => Map<string, Buffer> | undefined;

/** Why a container cannot be configured (the kubelet's CreateContainerConfigError). */
export class ContainerConfigError extends Error {}

/** A Secret, ConfigMap or key that is not there (yet): the kubelet tries again later. */
export class MissingSourceError extends ContainerConfigError {}

interface KeyRef {
  name?: string;
  key?: string;
  optional?: boolean;
}

interface EnvVarSource {
  secretKeyRef?: KeyRef;
  configMapKeyRef?: KeyRef;
  fieldRef?: { fieldPath?: string; apiVersion?: string };
  resourceFieldRef?: { resource?: string; containerName?: string; divisor?: string | number };
}

export interface EnvFromSource {
  prefix?: string;
  secretRef?: { name?: string; optional?: boolean };
  configMapRef?: { name?: string; optional?: boolean };
}

export interface KeyToPath {
  key?: string;
  path?: string;
  mode?: number;
}

/** The source of a secret volume (`secretName`) or a configMap volume (`name`). */
export interface ProjectedSource {
  secretName?: string;
  name?: string;
  items?: KeyToPath[];
  defaultMode?: number;
  optional?: boolean;
}

const ENV_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;
const lower = (kind: SourceKind) => kind.toLowerCase();

function refName(kind: SourceKind, where: string, name: unknown): string {
  if (typeof name !== 'string' || name === '')
    throw new ContainerConfigError(`${where}: the ${kind} needs a name`);
  return name;
}

/** The keys of `kind` `name`, or undefined when it is missing and `optional`. */
function keysOf(
  lookup: Lookup,
  kind: SourceKind,
  name: string,
  optional: boolean | undefined,
  files = false,
) {
  const keys = lookup(kind, name, files);
  if (!keys && !optional) throw new MissingSourceError(`${lower(kind)} "${name}" not found`);
  return keys;
}

function keyRef(lookup: Lookup, namespace: string, kind: SourceKind, where: string, ref: KeyRef) {
  const name = refName(kind, where, ref.name);
  if (typeof ref.key !== 'string' || ref.key === '')
    throw new ContainerConfigError(`${where}: the ${kind} key is required`);
  const keys = keysOf(lookup, kind, name, ref.optional);
  const value = keys?.get(ref.key);
  if (value === undefined && keys && !ref.optional)
    throw new MissingSourceError(`couldn't find key ${ref.key} in ${kind} ${namespace}/${name}`);
  return value && envValue(where, value, `key ${ref.key} in ${kind} ${namespace}/${name}`);
}

/** A value for the environment: text without NUL bytes (no process takes those). */
function envValue(where: string, value: Buffer, what: string): string {
  if (value.includes(0)) throw new ContainerConfigError(`${where}: ${what} has a NUL byte`);
  return value.toString('utf8');
}

const SIMPLE_FIELDS: Record<string, (pod: KubeObject) => string | undefined> = {
  'metadata.name': (p) => p.metadata.name,
  'metadata.namespace': (p) => p.metadata.namespace,
  'metadata.uid': (p) => p.metadata.uid,
  'spec.nodeName': (p) => (p.spec as { nodeName?: string } | undefined)?.nodeName ?? '',
  'spec.serviceAccountName': (p) =>
    (p.spec as { serviceAccountName?: string } | undefined)?.serviceAccountName ?? 'default',
  'status.podIP': () => HOST_IP,
  'status.podIPs': () => HOST_IP,
  'status.hostIP': () => HOST_IP,
  'status.hostIPs': () => HOST_IP,
};

/** `fieldRef.fieldPath` of the Pod, as the downward API gives it. */
export function fieldOf(pod: KubeObject, where: string, fieldPath: unknown): string {
  if (typeof fieldPath !== 'string')
    throw new ContainerConfigError(`${where}: fieldRef.fieldPath is required`);
  const simple = SIMPLE_FIELDS[fieldPath];
  if (simple) return simple(pod) ?? '';
  const m = /^metadata\.(labels|annotations)\['([^']*)'\]$/.exec(fieldPath);
  if (m) return (m[1] === 'labels' ? pod.metadata.labels : pod.metadata.annotations)?.[m[2]!] ?? '';
  throw new ContainerConfigError(
    `${where}: fieldRef.fieldPath ${fieldPath} is not supported (metadata.name, metadata.namespace, ` +
      `metadata.uid, metadata.labels['…'], metadata.annotations['…'], spec.nodeName, ` +
      `spec.serviceAccountName, status.podIP, status.hostIP)`,
  );
}

const BINARY: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50 };
const DECIMAL: Record<string, number> = { m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15 };

/** A resource quantity (`500m`, `64Mi`, `1.5`, `2e3`) as a number; undefined when it is not one. */
export function quantity(q: unknown): number | undefined {
  if (typeof q === 'number') return q;
  if (typeof q !== 'string') return undefined;
  const m = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|m|k|M|G|T|P)?)$/.exec(q.trim());
  if (!m) return undefined;
  const base = Number(m[1]);
  if (m[2]) return base * 10 ** Number(m[2].slice(1));
  const suffix = m[3] ?? '';
  return base * (BINARY[suffix] ?? DECIMAL[suffix]!);
}

/** This machine's cores and memory: what a container without a limit may use, as the kubelet says. */
export interface NodeCapacity {
  cpu: number;
  memory: number;
}

/**
 * `resourceFieldRef`: the container's limit or request of cpu, memory or ephemeral-storage over
 * the divisor, rounded up (a limit not set is the node's capacity, a request not set is 0).
 */
function resourceOf(
  container: {
    name: string;
    resources?: { limits?: Record<string, unknown>; requests?: Record<string, unknown> };
  },
  where: string,
  ref: NonNullable<EnvVarSource['resourceFieldRef']>,
  capacity: NodeCapacity,
): string {
  const m = /^(limits|requests)\.(cpu|memory|ephemeral-storage)$/.exec(ref.resource ?? '');
  if (!m)
    throw new ContainerConfigError(
      `${where}: resourceFieldRef.resource ${ref.resource ?? '(none)'} is not supported ` +
        `(limits.cpu, limits.memory, limits.ephemeral-storage, requests.cpu, requests.memory, requests.ephemeral-storage)`,
    );
  const [, kind, resource] = m as unknown as [string, 'limits' | 'requests', string];
  const divisor = ref.divisor === undefined ? 1 : quantity(ref.divisor);
  if (divisor === undefined || divisor <= 0)
    throw new ContainerConfigError(
      `${where}: resourceFieldRef.divisor ${String(ref.divisor)} is not a quantity`,
    );
  const set = container.resources?.[kind]?.[resource];
  let amount = set === undefined ? undefined : quantity(set);
  if (set !== undefined && amount === undefined)
    throw new ContainerConfigError(
      `${where}: resources.${kind}.${resource} ${String(set)} is not a quantity`,
    );
  if (amount === undefined)
    amount = kind === 'requests' ? 0 : resource === 'cpu' ? capacity.cpu : capacity.memory;
  return String(Math.max(resource === 'cpu' && amount > 0 ? 1 : 0, Math.ceil(amount / divisor - 1e-9)));
}

export interface EnvContext {
  pod: KubeObject;
  lookup: Lookup;
  capacity: NodeCapacity;
}

/** The value of one `env[].valueFrom`, or undefined when an optional source is missing. */
export function valueFrom(
  ctx: EnvContext,
  container: Parameters<typeof resourceOf>[0],
  envName: string,
  from: unknown,
): string | undefined {
  const where = `env ${envName}`;
  if (typeof from !== 'object' || from === null || Array.isArray(from))
    throw new ContainerConfigError(`${where}: valueFrom must be an object`);
  const source = from as EnvVarSource;
  const set = Object.keys(source).filter((k) => source[k as keyof EnvVarSource] !== undefined);
  if (set.length !== 1)
    throw new ContainerConfigError(
      `${where}: valueFrom needs exactly one of secretKeyRef, configMapKeyRef, fieldRef, resourceFieldRef`,
    );
  const namespace = ctx.pod.metadata.namespace!;
  if (source.secretKeyRef) return keyRef(ctx.lookup, namespace, 'Secret', where, source.secretKeyRef);
  if (source.configMapKeyRef)
    return keyRef(ctx.lookup, namespace, 'ConfigMap', where, source.configMapKeyRef);
  if (source.fieldRef) return fieldOf(ctx.pod, where, source.fieldRef.fieldPath);
  if (source.resourceFieldRef) {
    const target = source.resourceFieldRef.containerName;
    if (target && target !== container.name)
      throw new ContainerConfigError(
        `${where}: resourceFieldRef.containerName ${target} is not this container (${container.name})`,
      );
    return resourceOf(container, where, source.resourceFieldRef, ctx.capacity);
  }
  throw new ContainerConfigError(`${where}: valueFrom.${set[0]} is not supported by kube-lite's kubelet`);
}

/** The variables of `envFrom` in order (later sources win); keys that are no variable name are skipped. */
export function envFrom(ctx: EnvContext, sources: unknown): Record<string, string> {
  if (sources === undefined) return {};
  if (!Array.isArray(sources)) throw new ContainerConfigError('envFrom must be a list');
  const out: Record<string, string> = {};
  for (const [i, s] of (sources as EnvFromSource[]).entries()) {
    const where = `envFrom[${i}]`;
    const ref = s?.secretRef ?? s?.configMapRef;
    if (!ref || (s.secretRef && s.configMapRef))
      throw new ContainerConfigError(`${where}: exactly one of secretRef and configMapRef is required`);
    const kind: SourceKind = s.secretRef ? 'Secret' : 'ConfigMap';
    const keys = keysOf(ctx.lookup, kind, refName(kind, where, ref.name), ref.optional);
    for (const [key, value] of keys ?? []) {
      const name = `${s.prefix ?? ''}${key}`;
      if (ENV_NAME.test(name)) out[name] = envValue(where, value, `key ${key} of ${kind} ${ref.name}`);
    }
  }
  return out;
}

/** A relative path that stays inside its folder (no `..` part, not absolute, not empty). */
const insidePath = (p: unknown): p is string =>
  typeof p === 'string' && p !== '' && !path.posix.isAbsolute(p) && !p.split('/').includes('..');

const validMode = (m: unknown): m is number | undefined =>
  m === undefined || (Number.isInteger(m) && (m as number) >= 0 && (m as number) <= 0o777);

/**
 * Checks a secret or configMap volume's source; answers what is wrong with it (for the Pod's
 * failure), or nothing.
 */
export function sourceRefusal(kind: SourceKind, source: ProjectedSource): string | undefined {
  const name = kind === 'Secret' ? source.secretName : source.name;
  const field = kind === 'Secret' ? 'secret.secretName' : 'configMap.name';
  if (typeof name !== 'string' || name === '') return `${field} is required`;
  if (!validMode(source.defaultMode))
    return `defaultMode ${String(source.defaultMode)} is not between 0 and 0777`;
  if (source.items !== undefined && !Array.isArray(source.items)) return 'items must be a list';
  for (const item of source.items ?? []) {
    if (typeof item?.key !== 'string' || item.key === '') return 'items[].key is required';
    if (!insidePath(item.path)) return `items[].path ${String(item.path)} must be a relative path without ..`;
    if (!validMode(item.mode)) return `items[].mode ${String(item.mode)} is not between 0 and 0777`;
  }
  return undefined;
}

/**
 * Writes the files of a secret or configMap volume (checked by sourceRefusal) into `dir`: every key,
 * or the `items` asked for, with `mode` or `defaultMode` (0644). A missing source that is optional
 * leaves `dir` empty.
 */
export async function writeSourceFiles(
  lookup: Lookup,
  namespace: string,
  kind: SourceKind,
  source: ProjectedSource,
  dir: string,
): Promise<void> {
  const name = (kind === 'Secret' ? source.secretName : source.name)!;
  const keys = keysOf(lookup, kind, name, source.optional, true);
  const files: [string, Buffer, number][] = [];
  const defaultMode = source.defaultMode ?? 0o644;
  if (keys && source.items) {
    for (const item of source.items) {
      const value = keys.get(item.key!);
      if (value === undefined) {
        if (source.optional) continue;
        throw new MissingSourceError(
          `${kind === 'Secret' ? 'secret' : 'configmap'} references non-existent ${kind === 'Secret' ? 'secret' : 'config'} key: ${item.key} (${kind} ${namespace}/${name})`,
        );
      }
      files.push([item.path!, value, item.mode ?? defaultMode]);
    }
  } else if (keys) {
    for (const [key, value] of keys) if (insidePath(key)) files.push([key, value, defaultMode]);
  }
  await fs.mkdir(dir, { recursive: true, mode: 0o755 });
  for (const [file, value, mode] of files) {
    const target = path.join(dir, file);
    await fs.mkdir(path.dirname(target), { recursive: true, mode: 0o755 });
    await fs.writeFile(target, value, { mode });
    await fs.chmod(target, mode);
  }
}
