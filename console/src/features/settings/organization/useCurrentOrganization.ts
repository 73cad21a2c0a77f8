import { useMe } from '../../../api/queries';

/** The organization Organization and Users Settings act on: the caller's current one. */
export function useCurrentOrganizationId(): string | null {
  return useMe().data?.current_organization ?? null;
}
