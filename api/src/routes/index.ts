import type { RouteDefinition } from '../http/route.js';
import type { Services } from '../services/index.js';
import { authRoutes } from './auth.js';
import { groupRoutes } from './groups.js';
import { illuminaRoutes } from './illumina.js';
import { meRoutes } from './me.js';
import { oidcRoutes } from './oidc.js';
import { organizationRoutes } from './organizations.js';
import { outboxRoutes } from './outbox.js';
import { systemRoutes } from './system.js';
import { userRoutes } from './users.js';

/** Every route of /api/v0, in mounting order. */
export function allRoutes(services: Services): RouteDefinition[] {
  return [
    ...systemRoutes(services),
    ...authRoutes(services),
    ...oidcRoutes(services),
    ...meRoutes(services),
    ...illuminaRoutes(services),
    ...organizationRoutes(services),
    ...groupRoutes(services),
    ...userRoutes(services),
    ...outboxRoutes(services),
  ];
}
