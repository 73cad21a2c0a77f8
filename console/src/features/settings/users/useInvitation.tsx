import { useState, type ReactNode } from 'react';
import { useMe } from '../../../api/queries';
import { useGroups, useOrganizations } from '../queries';
import { InviteDialog } from './InviteDialog';

/**
 * Add User of a Users section of `organization` (spec 3 §6). Only the super admin chooses the
 * organization of an invitation, among all of them; the groups offered are the organization's,
 * or with `everyGroup` every group for the super admin (the chosen organization's are shown).
 * `queries` are what the dialog needs loaded; `dialog()` is the dialog while it is open.
 */
export function useInvitation(organization: string | null, { everyGroup }: { everyGroup: boolean }) {
  const me = useMe();
  const superAdmin = me.data?.role === 'admin';
  const organizations = useOrganizations();
  const groups = useGroups(everyGroup && superAdmin ? '' : (organization ?? ''));
  const [inviting, setInviting] = useState(false);
  return {
    me,
    queries: superAdmin ? [groups, organizations] : [groups],
    open: () => setInviting(true),
    dialog: (): ReactNode =>
      inviting &&
      organization && (
        <InviteDialog
          open
          organization={organization}
          organizations={superAdmin ? organizations.data : undefined}
          groups={groups.data!}
          onClose={() => setInviting(false)}
        />
      ),
  };
}
