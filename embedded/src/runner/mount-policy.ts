// Mount points checked when a step starts (issue 16): the host folders a step binds must be the
// organization's mount points (spec 3 §2.3 Mount Points: a base path and rows under it). The API
// refuses rows outside the base when they are saved; this refuses them again at the step's start, so
// a Sandbox applied with kubectl (bypassing the API) cannot bind /etc or a symlink leading out.
//
// The policy is the `sandflow.io/mount-points` annotation, JSON { base, points }, that the API writes
// on the organization namespace (api/src/services/kube-tenancy.ts); the organization is the
// `sandflow.io/organization` label of the run's namespace. A namespace of no organization (a bare
// test namespace, an agent's own cluster, which has no organization namespaces) is not checked
// here; an organization without the annotation allows no host folder at all.
import fs from 'node:fs';
import path from 'node:path';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { ANNOTATIONS, isNotFound, LABELS } from '@sandflow/kube';
import type { StepSpec } from './runtime.js';

export const MOUNT_POINTS_ANNOTATION = ANNOTATIONS.mountPoints;

export interface MountPolicy {
  /** The organization. */
  organization: string;
  /** Absolute base path; every row is inside it. */
  base: string;
  /** The host folders steps may bind (and what is below them). */
  points: string[];
}

/** The policy of a namespace's runs; undefined: the namespace belongs to no organization. */
export type MountPolicyFor = (namespace: string) => Promise<MountPolicy | undefined>;

/** The annotation's value; a missing or unreadable one allows nothing. */
export function parseMountPolicy(organization: string, raw: string | undefined): MountPolicy {
  try {
    const v = JSON.parse(raw ?? '') as { base?: unknown; points?: unknown };
    if (typeof v.base === 'string' && v.base.startsWith('/') && Array.isArray(v.points))
      return {
        organization,
        base: v.base,
        points: v.points.filter((p): p is string => typeof p === 'string' && p.startsWith('/')),
      };
  } catch {
    // unreadable: nothing allowed
  }
  return { organization, base: '/', points: [] };
}

/** The path with `.`/`..` and repeated slashes resolved, then symlinks followed as far as it exists. */
function real(p: string): string {
  let resolved = path.resolve('/', p);
  const rest: string[] = [];
  for (;;) {
    try {
      return path.join(fs.realpathSync(resolved), ...rest);
    } catch {
      if (resolved === '/') return path.join('/', ...rest);
      rest.unshift(path.basename(resolved));
      resolved = path.dirname(resolved);
    }
  }
}

const inside = (p: string, dir: string) => dir === '/' || p === dir || p.startsWith(`${dir}/`);

/**
 * Why a step's host mounts are not allowed (undefined: they are). Each mount's host path, with
 * symlinks followed, must be inside the base path and inside one of the mount point rows.
 */
export function mountRefusal(mounts: StepSpec['mounts'], policy: MountPolicy): string | undefined {
  const base = real(policy.base);
  const points = policy.points.map(real).filter((p) => inside(p, base));
  for (const m of mounts ?? []) {
    const host = real(m.hostPath);
    if (!inside(host, base))
      return `mount ${m.hostPath} at ${m.mountPath}: outside the mount base path ${policy.base} of organization ${policy.organization}`;
    if (!points.some((p) => inside(host, p)))
      return (
        `mount ${m.hostPath} at ${m.mountPath}: not one of the mount points of organization ` +
        `${policy.organization} (${policy.points.join(', ') || 'none'})`
      );
  }
  return undefined;
}

/**
 * Why a step may not bind these host folders whatever its organization allows (undefined: it may):
 * a folder that is, holds or lies inside one of the platform's own (its data folder: the JWT key,
 * the database, other organizations' runs). An organization admin picks the mount base and rows,
 * so without this a row of `/` would hand a step the key to sign anyone's session.
 */
export function platformPathRefusal(mounts: StepSpec['mounts'], platformPaths: string[]): string | undefined {
  const own = platformPaths.map(real);
  for (const m of mounts ?? []) {
    const host = real(m.hostPath);
    if (own.some((p) => inside(host, p) || inside(p, host)))
      return `mount ${m.hostPath} at ${m.mountPath}: overlaps the platform's data folder, which no step may bind`;
  }
  return undefined;
}

/** Reads the policies from the Kubernetes API, each namespace's at most every `ttlMs`. */
export function mountPolicies(kc: KubeConfig, ttlMs = 10_000): MountPolicyFor {
  const core = kc.makeApiClient(CoreV1Api);
  const cache = new Map<string, { at: number; value: Promise<MountPolicy | undefined> }>();
  const read = async (namespace: string): Promise<MountPolicy | undefined> => {
    let organization: string | undefined;
    try {
      organization = (await core.readNamespace({ name: namespace })).metadata?.labels?.[LABELS.organization];
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
    if (!organization) return undefined;
    const list = await core.listNamespace({ labelSelector: `${LABELS.organization}=${organization}` });
    const orgNs = list.items.find((ns) => !ns.metadata?.labels?.[LABELS.group]);
    return parseMountPolicy(organization, orgNs?.metadata?.annotations?.[MOUNT_POINTS_ANNOTATION]);
  };
  return (namespace) => {
    const hit = cache.get(namespace);
    if (hit && Date.now() - hit.at < ttlMs) return hit.value;
    const value = read(namespace).catch((e: unknown) => {
      cache.delete(namespace);
      throw new Error(`reading the mount points of namespace ${namespace} failed: ${(e as Error).message}`, {
        cause: e,
      });
    });
    cache.set(namespace, { at: Date.now(), value });
    return value;
  };
}
