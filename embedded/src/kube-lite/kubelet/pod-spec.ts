// The part of a v1 Pod's spec the kubelet honours, and how one container's launch is worked out
// from it and its image: the command (image Entrypoint/Cmd when absent, `$(VAR)` expanded as the
// kubelet does), the environment (envFrom, then env with its valueFrom: config-sources.ts), the user (container securityContext over the Pod's over the
// image's numeric User, else root of the user namespace), the working folder and the volume binds.
import path from 'node:path';
import type { ImageRuntimeConfig } from '@sandflow/images';
import type { KubeObject } from '../types.js';
import {
  ContainerConfigError,
  envFrom,
  valueFrom,
  type EnvContext,
  type EnvFromSource,
  type ProjectedSource,
} from './config-sources.js';

export { ContainerConfigError } from './config-sources.js';

export interface SecurityContext {
  runAsUser?: number;
  runAsGroup?: number;
}

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: unknown;
}

export interface VolumeMount {
  name: string;
  mountPath: string;
  readOnly?: boolean;
  subPath?: string;
}

export interface ContainerSpec {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  workingDir?: string;
  env?: EnvVar[];
  envFrom?: EnvFromSource[];
  resources?: { limits?: Record<string, unknown>; requests?: Record<string, unknown> };
  volumeMounts?: VolumeMount[];
  securityContext?: SecurityContext;
}

export interface Volume {
  name: string;
  emptyDir?: Record<string, unknown>;
  hostPath?: { path: string; type?: string };
  secret?: ProjectedSource;
  configMap?: ProjectedSource;
  [source: string]: unknown;
}

export type RestartPolicy = 'Always' | 'OnFailure' | 'Never';

export interface PodSpec {
  containers: ContainerSpec[];
  initContainers?: ContainerSpec[];
  volumes?: Volume[];
  restartPolicy?: RestartPolicy;
  terminationGracePeriodSeconds?: number;
  activeDeadlineSeconds?: number;
  securityContext?: SecurityContext;
  imagePullSecrets?: { name?: string }[];
  hostname?: string;
}

export const podSpec = (pod: KubeObject) => (pod.spec ?? {}) as PodSpec;

/** Everything a bwrap needs to run in one container: its process, and every exec into it. */
export interface Launch {
  root: string;
  hostname: string;
  config: ImageRuntimeConfig;
  uid: number;
  gid: number;
  binds: { hostPath: string; mountPath: string; readOnly?: boolean }[];
  env: Record<string, string>;
  /** The container's own process (exec brings its own command). */
  command: string[];
}

const expand = (s: string, env: Record<string, string>) =>
  s.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (m, name: string | undefined) =>
    m === '$$' ? '$' : name !== undefined && name in env ? env[name]! : m,
  );

function numericUser(user: string | undefined): [number | undefined, number | undefined] {
  const [u, g] = (user ?? '').split(':');
  const num = (s: string | undefined) => (s !== undefined && /^\d+$/.test(s) ? Number(s) : undefined);
  return [num(u), num(g)];
}

/** A Pod volume on the host: its folder, and whether it is mounted read-only whatever the mount says. */
export interface VolumeDir {
  dir: string;
  readOnly?: boolean;
}

/**
 * The environment of container `c`: `envFrom` first, then `env` in order (`$(VAR)` expanded over
 * what comes before it); an optional source that is missing sets nothing.
 */
export function containerEnv(ctx: EnvContext, c: ContainerSpec): Record<string, string> {
  const env = envFrom(ctx, c.envFrom);
  if (c.env !== undefined && !Array.isArray(c.env)) throw new ContainerConfigError('env must be a list');
  for (const e of c.env ?? []) {
    if (typeof e?.name !== 'string' || e.name === '')
      throw new ContainerConfigError('env[].name is required');
    if (e.valueFrom !== undefined) {
      const value = valueFrom(ctx, c, e.name, e.valueFrom);
      if (value !== undefined) env[e.name] = value;
    } else env[e.name] = expand(e.value ?? '', env);
  }
  return env;
}

/**
 * The launch of container `c` of `pod` over its writable root; `volumeDirs` maps the Pod's volume
 * names to host folders. Throws ContainerConfigError for what the kubelet cannot honour (a
 * MissingSourceError for a Secret, ConfigMap or key not there yet).
 */
export function launchOf(
  ctx: EnvContext,
  c: ContainerSpec,
  image: ImageRuntimeConfig,
  root: string,
  volumeDirs: Map<string, VolumeDir>,
): Launch {
  const pod = ctx.pod;
  const spec = podSpec(pod);
  const env = containerEnv(ctx, c);
  const binds: Launch['binds'] = [];
  for (const m of c.volumeMounts ?? []) {
    const volume = volumeDirs.get(m.name);
    if (!volume) throw new ContainerConfigError(`volumeMount ${m.name}: no such volume in the pod`);
    const dir = volume.dir;
    if (!path.posix.isAbsolute(m.mountPath))
      throw new ContainerConfigError(`volumeMount ${m.name}: mountPath ${m.mountPath} is not absolute`);
    if (m.subPath !== undefined && (m.subPath.split('/').includes('..') || path.posix.isAbsolute(m.subPath)))
      throw new ContainerConfigError(`volumeMount ${m.name}: subPath ${m.subPath} leaves the volume`);
    const hostPath = m.subPath ? path.join(dir, m.subPath) : dir;
    const readOnly = m.readOnly || volume.readOnly;
    binds.push({ hostPath, mountPath: m.mountPath, ...(readOnly ? { readOnly: true } : {}) });
  }
  const [imageUid, imageGid] = numericUser(image.User);
  const uid = c.securityContext?.runAsUser ?? spec.securityContext?.runAsUser ?? imageUid ?? 0;
  const gid = c.securityContext?.runAsGroup ?? spec.securityContext?.runAsGroup ?? imageGid ?? 0;
  const entry = c.command ?? image.Entrypoint ?? [];
  const args = c.args ?? (c.command ? [] : (image.Cmd ?? []));
  const command = [...entry, ...args].map((s) => expand(s, env));
  return {
    root,
    hostname: spec.hostname ?? pod.metadata.name!,
    config: { ...image, ...(c.workingDir ? { WorkingDir: c.workingDir } : {}) },
    uid,
    gid,
    binds,
    env,
    command,
  };
}
