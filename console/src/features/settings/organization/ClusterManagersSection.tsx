import { Alert, Divider, Stack } from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMe, useOrganization } from '../../../api/queries';
import { ClusterFlyout, type ClusterRole } from '../clusters/ClusterFlyout';
import { ClustersTable } from '../clusters/ClustersTable';
import { useClusters, type ClusterItem } from '../clusters/queries';
import { SchedulerRadio } from '../clusters/SchedulerRadio';
import { TokenDialog } from '../clusters/TokenDialog';
import { Loaded } from '../common/Loaded';
import { useOrganizations } from '../queries';
import { AutomaticProvisionerCard } from './AutomaticProvisionerCard';
import { useCurrentOrganizationId } from './useCurrentOrganization';

/** The super admin's flyout, with the organizations a private cluster manager is assigned to. */
function SuperFlyout(props: { cluster: ClusterItem; organization: string | null; onClose: () => void }) {
  const organizations = useOrganizations();
  return (
    <Loaded queries={[organizations]}>
      {() => <ClusterFlyout {...props} role="super" organizations={organizations.data!} />}
    </Loaded>
  );
}

/**
 * Organization Settings › Cluster Managers (spec 3 §2.3): the current organization's scheduler
 * and the cluster managers it may use (every one for the super admin), refreshed every 10 s,
 * with the token modal and a flyout per row whose actions follow the role matrix (§6); the
 * Automatic Provisioner card for organization admins (not the super admin, §6).
 */
export default function ClusterManagersSection() {
  const { t } = useTranslation('settings');
  const me = useMe();
  const organizationId = useCurrentOrganizationId();
  const organization = useOrganization(Boolean(organizationId));
  const clusters = useClusters();
  const [adding, setAdding] = useState(false);
  const [open, setOpen] = useState<string | null>(null);
  const role: ClusterRole = me.data?.role === 'admin' ? 'super' : 'organizationAdmin';
  if (!organizationId && role !== 'super') return <Alert severity="info">{t('noCurrentOrganization')}</Alert>;
  const queries = organizationId ? [clusters, organization] : [clusters];
  return (
    <Loaded queries={queries}>
      {() => {
        const opened = clusters.data!.find((c) => c.id === open);
        return (
          <Stack spacing={3}>
            {organization.data && (
              <>
                <SchedulerRadio
                  key={organization.data.id}
                  organization={organization.data.id}
                  saved={organization.data.algorithm}
                />
                <Divider />
              </>
            )}
            <ClustersTable
              clusters={clusters.data!}
              onAdd={() => setAdding(true)}
              onOpen={(c) => setOpen(c.id)}
            />
            {organization.data && role !== 'super' && (
              <AutomaticProvisionerCard key={organization.data.id} saved={organization.data} />
            )}
            {adding && <TokenDialog organization={organizationId} onClose={() => setAdding(false)} />}
            {opened &&
              (role === 'super' ? (
                <SuperFlyout cluster={opened} organization={organizationId} onClose={() => setOpen(null)} />
              ) : (
                <ClusterFlyout
                  cluster={opened}
                  role={role}
                  organization={organizationId}
                  organizations={[]}
                  onClose={() => setOpen(null)}
                />
              ))}
          </Stack>
        );
      }}
    </Loaded>
  );
}
