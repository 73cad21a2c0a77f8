import { MountPointsForm } from '../clusters/MountPointsForm';
import { CurrentOrganizationSection } from './CurrentOrganizationSection';

/** Organization Settings › Mount Points (spec 3 §2.3) of the current organization. */
export default function MountPointsSection() {
  return (
    <CurrentOrganizationSection>
      {(organization) => (
        <MountPointsForm key={organization.id} organization={organization.id} saved={organization} />
      )}
    </CurrentOrganizationSection>
  );
}
