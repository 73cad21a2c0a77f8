import { lazy } from 'react';

/** Users Settings has a single Users section (spec 3 §2.4). */
export const USERS_SECTIONS = [{ id: 'users', Component: lazy(() => import('./UsersSection')) }] as const;
