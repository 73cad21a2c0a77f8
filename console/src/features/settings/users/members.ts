// Pure helpers of Users Settings (spec 3 §2.4, §5): the search over the group tables, the
// Quota column's text and the Edit Quota modal's starting values and request body.
import { toApi, toDisplay } from '../quota';
import type { GroupTable, GroupTableUser, Resources } from '../types';

/**
 * The search (spec 3 §5): a case-sensitive substring of the member's name, e-mail or the
 * group's name. A group whose name matches keeps all its members.
 */
export function visibleMembers(table: GroupTable, search: string): GroupTableUser[] {
  if (!search || table.name.includes(search)) return table.users;
  return table.users.filter((u) => u.name.includes(search) || u.email.includes(search));
}

/** The Quota column: cores and GB for a fixed quota, percentages of the group's otherwise. */
export function quotaText(quota: GroupTableUser['quota'], units: { cores: string; gb: string }): string {
  if (quota.use_percentage) return `${quota.cpu}% · ${quota.memory}% · ${quota.disk}%`;
  const shown = toDisplay(quota);
  return `${shown.cpu} ${units.cores} · ${shown.memory} ${units.gb} · ${shown.disk} ${units.gb}`;
}

/** The modal's values in the unit it shows: percent, or cores / GB. */
export const shownQuota = (quota: GroupTableUser['quota']): Resources =>
  quota.use_percentage ? { cpu: quota.cpu, memory: quota.memory, disk: quota.disk } : toDisplay(quota);

/** PUT /user/{id}/quota's body: percentages as they are, fixed values in millicores and MB. */
export function quotaBody(group: string, values: Resources, percentage: boolean, uid: number | null) {
  const sent = percentage ? values : toApi(values);
  return {
    quota: { group, cpu: sent.cpu, memory: sent.memory, disk: sent.disk, use_percentage: percentage },
    ...(uid === null ? {} : { uid }),
  };
}
