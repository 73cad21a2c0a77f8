import { lazy, type ComponentType, type LazyExoticComponent } from 'react';

/**
 * The sidebar of Organization Settings (spec 3 §2.3), in order: a section id (also the
 * `?section=` of the URL and the key of its label in settings.json `organization.sections`)
 * and the lazily loaded component that renders it. The cluster-manager issue replaces the
 * three NothingYet entries with its own components.
 */
export interface OrganizationSection {
  id: string;
  Component: LazyExoticComponent<ComponentType>;
}

const nothingYet = lazy(() => import('../NothingYet'));

export const ORGANIZATION_SECTIONS: readonly OrganizationSection[] = [
  { id: 'admin', Component: lazy(() => import('./AdminSection')) },
  { id: 'groups', Component: lazy(() => import('./GroupsSection')) },
  { id: 'users', Component: lazy(() => import('./UsersSection')) },
  { id: 'clusterManagers', Component: nothingYet },
  { id: 'registry', Component: nothingYet },
  { id: 'mountPoints', Component: nothingYet },
];
