// The automatic provisioner (spec 3 §2.3, §3, §5; issue 16): an organization may run above its
// groups' quotas by borrowing capacity of the platform that no group quota holds.
//
// - What it may borrow: the `sandflow.io/provisioner` annotation of its organization namespace,
//   JSON { cpu (millicores), memory (MB), disk (MB) }. The API writes it from the organization's
//   automatic_resources when the super admin enabled the provisioner for it (enable_provisioner), the
//   organization turned it on (use_automatic_resources) and the super admin has not disabled the
//   provisioning for all the organizations; otherwise it removes it and nothing is lent.
// - What a run borrows: how far it takes its group above the group's ResourceQuota, per resource
//   (a quota of 0 puts no limit, so nothing is borrowed for it). What the organization has borrowed
//   is the sum of that excess over its group namespaces, from the admitted runs: nothing to
//   remember, and the same after an operator restart.
// - Where it comes from: the alive, active cluster managers' total minus every group's quota minus
//   what all organizations have borrowed. Borrowing never takes what a group is guaranteed.
// The per-user quotas of a group still apply: the provisioner lends to the group, not past the
// share its admin gave a user.
import { ANNOTATIONS } from '@sandflow/kube';
import type { ClusterManager } from '@sandflow/crds';
import { ZERO, add, type Resources } from '../../runs/scheduler.js';

/** On an organization namespace (written by the API, api/src/services/kube-tenancy.ts). */
export const PROVISIONER_ANNOTATION = ANNOTATIONS.provisioner;

const KEYS = ['cpu', 'memory', 'disk'] as const;

/** The amount of `used` above `quota`, per resource; 0 for an unlimited (0 or absent) quota value. */
export function excessOver(quota: Partial<Resources> | undefined, used: Resources): Resources {
  const out = { ...ZERO };
  for (const k of KEYS) {
    const limit = quota?.[k] ?? 0;
    out[k] = limit > 0 ? Math.max(0, used[k] - limit) : 0;
  }
  return out;
}

/** The provisioner's allowance from the annotation; undefined when off or unreadable. */
export function parseAllowance(raw: string | undefined): Resources | undefined {
  if (!raw) return undefined;
  try {
    const v = JSON.parse(raw) as Partial<Record<keyof Resources, unknown>>;
    const out = { ...ZERO };
    for (const k of KEYS) {
      const n = v[k];
      if (typeof n !== 'number' || !Number.isFinite(n) || n < 0) return undefined;
      out[k] = n;
    }
    return out;
  } catch {
    return undefined;
  }
}

/**
 * The platform's capacity no group quota holds: the alive, active cluster managers' resources
 * minus the summed group quotas. A cluster manager without a disk figure leaves disk unbounded.
 */
export function platformCapacity(
  clusterManagers: ClusterManager[],
  groupQuotas: (Partial<Resources> | undefined)[],
): Resources {
  let total = { ...ZERO };
  for (const cm of clusterManagers) {
    if (!cm.status?.alive || cm.spec.active === false) continue;
    const r = cm.spec.resources ?? {};
    total = add(total, {
      cpu: r.cpu ?? 0,
      memory: r.memory ?? 0,
      disk: r.disk ?? Number.POSITIVE_INFINITY,
    });
  }
  let reserved = { ...ZERO };
  for (const q of groupQuotas)
    reserved = add(reserved, { cpu: q?.cpu ?? 0, memory: q?.memory ?? 0, disk: q?.disk ?? 0 });
  return {
    cpu: total.cpu - reserved.cpu,
    memory: total.memory - reserved.memory,
    disk: total.disk - reserved.disk,
  };
}

const show = (r: Resources) =>
  `${r.cpu}m cpu, ${r.memory} MB memory, ${Number.isFinite(r.disk) ? r.disk : '∞'} MB disk`;

export interface BorrowInput {
  /** The group's quota refused the run: its reason. */
  refused: string;
  groupQuota: Partial<Resources> | undefined;
  /** What the group's other admitted runs hold. */
  usedGroup: Resources;
  demand: Resources;
  /** The organization's provisioner allowance; undefined: off. */
  allowance: Resources | undefined;
  /** What the organization's groups hold above their quotas now. */
  borrowedByOrganization: Resources;
  /** What all organizations hold above their groups' quotas now. */
  borrowedByAll: Resources;
  /** The platform's capacity no group quota holds (platformCapacity). */
  platform: Resources;
}

/**
 * Whether the provisioner admits a run its group's quota refused: `{ borrow }` (what it takes
 * above the quota) or `{ reason }` (why it still waits: the quota's reason, plus the provisioner's).
 */
export function provisionerDecision(i: BorrowInput): { borrow: Resources } | { reason: string } {
  if (!i.allowance) return { reason: i.refused };
  const borrow = excessOver(i.groupQuota, add(i.usedGroup, i.demand));
  const already = excessOver(i.groupQuota, i.usedGroup);
  const more = {
    cpu: borrow.cpu - already.cpu,
    memory: borrow.memory - already.memory,
    disk: borrow.disk - already.disk,
  };
  for (const k of KEYS) {
    if (i.borrowedByOrganization[k] + more[k] > i.allowance[k])
      return {
        reason:
          `${i.refused}; the automatic provisioner lends at most ${show(i.allowance)} ` +
          `(${show(i.borrowedByOrganization)} already lent)`,
      };
  }
  for (const k of KEYS) {
    if (i.borrowedByAll[k] + more[k] > i.platform[k])
      return {
        reason: `${i.refused}; the automatic provisioner found no free ${k} on the platform above the quotas`,
      };
  }
  return { borrow: more };
}
