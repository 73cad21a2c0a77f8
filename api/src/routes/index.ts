import type { RouteDefinition } from '../http/route.js';
import type { Services } from '../services/index.js';
import { authRoutes } from './auth.js';
import { billingRoutes } from './billing.js';
import { clusterRoutes } from './clusters.js';
import { containerRoutes } from './containers.js';
import { fileRoutes } from './files.js';
import { groupRoutes } from './groups.js';
import { illuminaRoutes } from './illumina.js';
import { imageRoutes } from './images.js';
import { meRoutes } from './me.js';
import { oidcRoutes } from './oidc.js';
import { organizationRoutes } from './organizations.js';
import { outboxRoutes } from './outbox.js';
import { parseRoutes } from './parse.js';
import { runRoutes } from './runs.js';
import { sandboxRoutes } from './sandboxes.js';
import { sessionRoutes } from './sessions.js';
import { statisticsRoutes } from './statistics.js';
import { systemRoutes } from './system.js';
import { userRoutes } from './users.js';
import { workflowRoutes } from './workflows.js';

/** Every route of /api/v0, in mounting order. */
export function allRoutes(services: Services): RouteDefinition[] {
  return [
    ...systemRoutes(services),
    ...authRoutes(services),
    ...oidcRoutes(services),
    ...meRoutes(services),
    ...illuminaRoutes(services),
    ...organizationRoutes(services),
    ...clusterRoutes(services),
    ...groupRoutes(services),
    ...userRoutes(services),
    ...outboxRoutes(services),
    ...sandboxRoutes(services),
    ...workflowRoutes(services),
    ...fileRoutes(services),
    ...sessionRoutes(services),
    ...runRoutes(services),
    ...statisticsRoutes(services),
    ...billingRoutes(services),
    ...imageRoutes(services),
    ...containerRoutes(services),
    ...parseRoutes(services),
  ];
}
