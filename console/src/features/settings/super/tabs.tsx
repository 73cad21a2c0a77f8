import { lazy, type ComponentType, type LazyExoticComponent } from 'react';

/**
 * The tabs of Super Settings (spec 3 §2.5), in order: the tab id (the `?tab=` of the URL and
 * the key of its label in settings.json `super.tabs`) and its lazily loaded component.
 */
export interface SuperTab {
  id: string;
  Component: LazyExoticComponent<ComponentType>;
}

export const SUPER_TABS: readonly SuperTab[] = [
  { id: 'organizations', Component: lazy(() => import('./OrganizationsTab')) },
  { id: 'groups', Component: lazy(() => import('./GroupsTab')) },
  { id: 'users', Component: lazy(() => import('./UsersTab')) },
  { id: 'cluster_managers', Component: lazy(() => import('./ClusterManagersTab')) },
  { id: 'miscellaneous', Component: lazy(() => import('./MiscellaneousTab')) },
];
