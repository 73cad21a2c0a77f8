import { z } from 'zod';
import { route, type RouteDefinition } from '../http/route.js';
import { zBool, zName, zUuid } from '../http/schemas.js';
import type { Services } from '../services/index.js';
import { zDone, zTimestamp } from './results.js';

/** A ClusterManager's metadata.name (a DNS subdomain), as GET /cluster answers it in `id`. */
export const zClusterId = z
  .string()
  .max(253, 'at most 253 characters')
  .regex(
    /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/,
    'must be a cluster manager id (lower-case letters, digits, - and .)',
  );

const clusterParams = z.object({ id: zClusterId }).strict();
const zOrganizationIds = z.array(zUuid).max(1000, 'at most 1000 organizations');

export const zClusterResult = z.strictObject({
  id: z.string().describe('The ClusterManager name.'),
  uuid: z.string().describe('Same as id (the session form names clusters by uuid).'),
  name: z.string().describe('The title, else the label (hostname), else the id.'),
  title: z.string(),
  label: z.string().describe('Label or hostname the agent reported.'),
  version: z.string(),
  address: z.string().describe('The ID column of the table.'),
  cpu: z.number().describe('millicores'),
  memory: z.number().describe('MB'),
  disk: z.number().describe('MB'),
  organizations: z.array(z.string()).describe('Organizations a private cluster manager is assigned to.'),
  public: z.boolean(),
  active: z.boolean(),
  isIlluminia: z.boolean().describe('The platform-owned cluster manager; it cannot be deleted.'),
  creationDate: zTimestamp,
  lastUpdate: zTimestamp.nullable().describe('Last heartbeat; null: its agent never connected.'),
  isAlive: z.boolean().describe('Seen within 3 minutes.'),
  connection: z
    .enum(['connected', 'connecting', 'closed'])
    .describe('< 2 min, 2-3 min, > 3 min since lastUpdate.'),
  disabled: z.boolean().describe("The caller's current organization disabled it for itself."),
});

export function clusterRoutes(services: Services): RouteDefinition[] {
  const { clusters, organizations } = services;
  return [
    route({
      method: 'get',
      path: '/cluster',
      tag: 'clusters',
      summary:
        'Cluster managers: all for the super admin, otherwise those the current organization may use ' +
        '(public, platform-owned or assigned to it).',
      result: z.array(zClusterResult),
      async handler({ caller }) {
        return clusters.list(caller!);
      },
    }),
    route({
      method: 'get',
      path: '/admin/cluster',
      tag: 'clusters',
      summary: 'Every cluster manager (super admin).',
      result: z.array(zClusterResult),
      async handler({ caller }) {
        return clusters.listAll(caller!);
      },
    }),
    route({
      method: 'post',
      path: '/cluster',
      tag: 'clusters',
      summary:
        'Add a cluster manager and answer the token its agent registers with (shown only here; stored ' +
        'hashed). An organization admin adds a private one for their own organization.',
      status: 201,
      body: z.object({ organizations: zOrganizationIds.optional(), public: zBool.optional() }).strict(),
      result: z.strictObject({
        id: z.string().describe('The new ClusterManager.'),
        token_id: z.uuid(),
        token: z.string().describe('Give it to `sandflow agent --token`; it is never shown again.'),
      }),
      async handler({ caller, body }) {
        return clusters.create(caller!, body);
      },
    }),
    route({
      method: 'put',
      path: '/cluster/:id/name',
      tag: 'clusters',
      summary: 'Rename a cluster manager (super admin).',
      params: clusterParams,
      body: z.object({ name: zName }).strict(),
      result: zClusterResult,
      async handler({ caller, params, body }) {
        return clusters.rename(caller!, params.id, body.name);
      },
    }),
    route({
      method: 'put',
      path: '/cluster/:id',
      tag: 'clusters',
      summary: 'Make a cluster manager public, or private to the organizations listed (super admin).',
      params: clusterParams,
      body: z
        .object({
          id: zClusterId.optional(),
          token_id: zUuid.optional(),
          organizations: zOrganizationIds.optional(),
          is_public: zBool.optional(),
        })
        .strict(),
      result: zClusterResult,
      async handler({ caller, params, body }) {
        return clusters.setVisibility(caller!, params.id, {
          organizations: body.organizations,
          public: body.is_public,
        });
      },
    }),
    route({
      method: 'delete',
      path: '/cluster/:id',
      tag: 'clusters',
      summary:
        'Delete a cluster manager (super admin; never the platform one: 409) and revoke its tokens; an ' +
        'organization admin unlinks it from their organization (deleting it when it was private to ' +
        'that organization alone).',
      params: clusterParams,
      result: zDone,
      async handler({ caller, params }) {
        if ((await clusters.remove(caller!, params.id)) === 'deleted')
          await organizations.forgetCluster(params.id);
        return true;
      },
    }),
  ];
}
