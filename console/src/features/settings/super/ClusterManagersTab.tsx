import { useState } from 'react';
import { ClusterFlyout } from '../clusters/ClusterFlyout';
import { ClustersTable } from '../clusters/ClustersTable';
import { useClusters } from '../clusters/queries';
import { TokenDialog } from '../clusters/TokenDialog';
import { Loaded } from '../common/Loaded';
import { SUPER_REFRESH_MS, useOrganizations } from '../queries';

/**
 * Super Settings › Cluster Managers: every cluster manager (the super admin's view of
 * GET /cluster), refreshed every 30 seconds, with the token modal and the super admin's
 * flyout (rename, public, organizations, delete).
 */
export default function ClusterManagersTab() {
  const clusters = useClusters(SUPER_REFRESH_MS);
  const organizations = useOrganizations(SUPER_REFRESH_MS);
  const [adding, setAdding] = useState(false);
  const [open, setOpen] = useState<string | null>(null);
  return (
    <Loaded queries={[clusters, organizations]}>
      {() => {
        const opened = clusters.data!.find((c) => c.id === open);
        return (
          <>
            <ClustersTable
              clusters={clusters.data!}
              onAdd={() => setAdding(true)}
              onOpen={(c) => setOpen(c.id)}
            />
            {adding && <TokenDialog organization={null} onClose={() => setAdding(false)} />}
            {opened && (
              <ClusterFlyout
                cluster={opened}
                role="super"
                organization={null}
                organizations={organizations.data!}
                onClose={() => setOpen(null)}
              />
            )}
          </>
        );
      }}
    </Loaded>
  );
}
