import { RegistryForm } from '../clusters/RegistryForm';
import { CurrentOrganizationSection } from './CurrentOrganizationSection';

/** Organization Settings › Organization Registry (spec 3 §2.3) of the current organization. */
export default function RegistrySection() {
  return (
    <CurrentOrganizationSection>
      {(organization) => (
        <RegistryForm
          key={JSON.stringify(organization.registry)}
          organization={organization.id}
          registry={organization.registry}
        />
      )}
    </CurrentOrganizationSection>
  );
}
