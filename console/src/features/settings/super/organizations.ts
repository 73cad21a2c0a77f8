// Pure helpers of Super Settings › Organizations (spec 3 §2.5).
import { toDisplay } from '../quota';
import type { OrganizationItem, Resources, Username } from '../types';

/** GET /admin/username lists a person once per organization: each person once, by e-mail. */
export function uniquePeople(rows: readonly Username[]): Username[] {
  const seen = new Map<string, Username>();
  for (const row of rows) if (!seen.has(row.id)) seen.set(row.id, row);
  return [...seen.values()].sort((a, b) => a.email.localeCompare(b.email));
}

/** The Organization Admins column: the first admin and a count of the rest ('' without any). */
export function adminsText(
  admins: readonly string[],
  emails: ReadonlyMap<string, string>,
  more: (count: number) => string,
): string {
  if (admins.length === 0) return '';
  const first = emails.get(admins[0]!) ?? admins[0]!;
  return admins.length > 1 ? `${first} ${more(admins.length - 1)}` : first;
}

/** The Quota column: CPU cores, memory GB, disk GB. */
export function organizationQuotaText(quota: Resources, units: { cores: string; gb: string }): string {
  const shown = toDisplay(quota);
  return `${shown.cpu} ${units.cores} · ${shown.memory} ${units.gb} · ${shown.disk} ${units.gb}`;
}

/** The search: a case-insensitive substring of the name or an admin's e-mail. */
export function organizationMatches(
  organization: OrganizationItem,
  search: string,
  emails: ReadonlyMap<string, string>,
): boolean {
  const needle = search.trim().toLowerCase();
  if (!needle) return true;
  return [organization.name, ...organization.admins.map((id) => emails.get(id) ?? '')].some((text) =>
    text.toLowerCase().includes(needle),
  );
}
