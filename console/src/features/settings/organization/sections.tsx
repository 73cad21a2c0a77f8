import { lazy, type ComponentType, type LazyExoticComponent } from 'react';

/**
 * The sidebar of Organization Settings (spec 3 §2.3), in order: a section id (also the
 * `?section=` of the URL and the key of its label in settings.json `organization.sections`)
 * and the lazily loaded component that renders it.
 */
export interface OrganizationSection {
  id: string;
  Component: LazyExoticComponent<ComponentType>;
}

export const ORGANIZATION_SECTIONS: readonly OrganizationSection[] = [
  { id: 'admin', Component: lazy(() => import('./AdminSection')) },
  { id: 'groups', Component: lazy(() => import('./GroupsSection')) },
  { id: 'users', Component: lazy(() => import('./UsersSection')) },
  { id: 'clusterManagers', Component: lazy(() => import('./ClusterManagersSection')) },
  { id: 'registry', Component: lazy(() => import('./RegistrySection')) },
  { id: 'mountPoints', Component: lazy(() => import('./MountPointsSection')) },
];
