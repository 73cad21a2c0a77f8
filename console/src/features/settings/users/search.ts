import type { UserItem } from '../types';

/**
 * The user table's search (spec 3 §5): a case-sensitive substring of the name, a group name,
 * an organization name or the e-mail.
 */
export function userMatches(user: UserItem, search: string): boolean {
  if (!search) return true;
  return [
    user.fullName,
    user.email,
    ...user.groups.map((g) => g.name),
    ...user.organizations.map((o) => o.name),
  ].some((text) => text.includes(search));
}
