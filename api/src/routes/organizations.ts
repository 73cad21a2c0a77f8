import { z } from 'zod';
import { route, type RouteDefinition } from '../http/route.js';
import { idParams, zBool, zName, zResources, zStringList, zText, zUuid } from '../http/schemas.js';
import { ALGORITHMS, zDone, zOrganizationResult, zResourcesResult } from './results.js';
import type { Services } from '../services/index.js';
import { normalizeMountPoints } from '../services/organizations.js';
import { nextRegistry, openRegistry, type StoredRegistry } from '../services/clusters-registry.js';
import { zClusterId } from './clusters.js';

const resources = zResourcesResult;
const capacityResult = z.object({
  total: resources.nullable().describe('Summed resources of the alive cluster managers; null: unknown.'),
  clusters: z.number().nullable().describe('How many alive cluster managers were counted.'),
  allocated: resources.describe('Summed quotas of all organizations.'),
  free: resources
    .nullable()
    .describe(
      'Largest quota of a new organization: total minus allocated, rounded down to 0.5 core, ' +
        '0.5 GB memory, 0.1 GB disk, never below 0. Editing an organization, the largest quota is ' +
        "free plus the organization's current quota. null: unknown, nothing is capped.",
    ),
});

/**
 * Spec 3 §7: the super admin and an organization admin send different field names
 * for the same things; both spellings are accepted and mapped here.
 */
const organizationUpdate = z
  .object({
    id: zUuid.optional(),
    name: zName.optional(),
    quota: zResources.optional(),
    admins: zStringList.optional(),
    automatic_resources: zResources.optional(),
    provisionerResources: zResources.optional(),
    provisioner: zResources.optional(),
    use_automatic_resources: zBool.optional(),
    useAutomaticLimit: zBool.optional(),
    enable_provisioner: zBool.optional(),
    enableProvisioner: zBool.optional(),
    lock_provisioner: zBool.optional(),
    lockValue: zBool.optional(),
    use_free: zBool.optional(),
    useFreeQuota: zBool.optional(),
  })
  .strict();

export function organizationRoutes(services: Services): RouteDefinition[] {
  const { organizations, clusters, secrets } = services;
  const clusterParams = z.object({ id: zUuid, clusterId: zClusterId }).strict();
  return [
    route({
      method: 'get',
      path: '/organizations',
      tag: 'organizations',
      summary: 'Organizations: all for the super admin, otherwise those the caller belongs to.',
      result: z.array(zOrganizationResult),
      async handler({ caller }) {
        return organizations.list(caller!);
      },
    }),
    route({
      method: 'get',
      path: '/organizations/capacity',
      tag: 'organizations',
      summary:
        'Free cluster capacity for organization quotas (spec 3 §5): alive cluster managers (seen within ' +
        '3 minutes) minus the quotas all organizations hold.',
      result: capacityResult,
      async handler() {
        return organizations.capacity();
      },
    }),
    route({
      method: 'post',
      path: '/organizations',
      tag: 'organizations',
      summary:
        'Create an organization; the creator becomes its admin. Quota capped by free cluster capacity.',
      status: 201,
      body: z.object({ name: zName, quota: zResources.optional(), admins: zStringList.optional() }).strict(),
      result: zOrganizationResult,
      async handler({ caller, body }) {
        return organizations.create(caller!, body);
      },
    }),
    route({
      method: 'put',
      path: '/organizations/:id',
      tag: 'organizations',
      summary: 'Update an organization (an organization admin: name and provisioner limits only).',
      params: idParams,
      body: organizationUpdate,
      result: zOrganizationResult,
      async handler({ caller, role, params, body }) {
        return organizations.update(caller!, role!, params.id, {
          name: body.name,
          quota: body.quota,
          admins: body.admins,
          automatic_resources: body.automatic_resources ?? body.provisionerResources ?? body.provisioner,
          use_automatic_resources: body.use_automatic_resources ?? body.useAutomaticLimit,
          enable_provisioner: body.enable_provisioner ?? body.enableProvisioner,
          lock_provisioner: body.lock_provisioner ?? body.lockValue,
          use_free: body.use_free ?? body.useFreeQuota,
        });
      },
    }),
    route({
      method: 'delete',
      path: '/organizations/:id',
      tag: 'organizations',
      summary: 'Delete an organization, its groups and namespaces; ?purge=true also removes its users.',
      params: idParams,
      query: z.object({ purge: zBool.default(false) }),
      result: zDone,
      async handler({ caller, params, query }) {
        await organizations.remove(caller!, params.id, query.purge);
        return true;
      },
    }),
    route({
      method: 'put',
      path: '/organizations/:id/admin',
      tag: 'organizations',
      summary: 'Set the organization admins.',
      params: idParams,
      body: z.object({ admins: zStringList }),
      result: zOrganizationResult,
      async handler({ caller, params, body }) {
        return organizations.setAdmins(caller!, params.id, body.admins);
      },
    }),
    route({
      method: 'put',
      path: '/organizations/:id/algorithm',
      tag: 'organizations',
      summary: 'Set the scheduling algorithm.',
      params: idParams,
      body: z.object({ algorithm: z.enum(ALGORITHMS) }),
      result: zOrganizationResult,
      async handler({ caller, params, body }) {
        return organizations.patch(caller!, params.id, { algorithm: body.algorithm }, 'algorithm');
      },
    }),
    route({
      method: 'put',
      path: '/organizations/:id/registry',
      tag: 'organizations',
      summary:
        "Set the organization's image registry: the platform's, or a private one (http(s) URL); its " +
        'account becomes a kubernetes.io/dockerconfigjson Secret in the organization namespace. The ' +
        "password is never answered; sending '********' (or nothing) keeps the stored one.",
      params: idParams,
      body: z.object({
        id: zUuid.optional(),
        registry: z
          .object({
            use_custom: zBool,
            url: zText(500).optional(),
            username: zText(200).optional(),
            password: zText(500, { trim: false }).optional(),
          })
          .strict(),
      }),
      result: zOrganizationResult,
      async handler({ caller, params, body }) {
        const org = await organizations.get(params.id);
        // Stored with its password sealed; the namespace's pull Secret gets it opened.
        const registry = nextRegistry(org.registry as StoredRegistry | null, body.registry, secrets);
        await clusters.saveRegistrySecret(
          { id: org.id, slug: org.slug },
          openRegistry(registry, secrets, `organization ${org.slug}`),
        );
        return organizations.patch(caller!, params.id, { registry: JSON.stringify(registry) }, 'registry');
      },
    }),
    route({
      method: 'put',
      path: '/organizations/:id/mount',
      tag: 'organizations',
      summary:
        'Set the base path and mount points (double slashes collapsed, empty rows dropped, /mnt prefix ' +
        'with safe mount; a row outside the base path is refused). No base_path: the stored one stays.',
      params: idParams,
      body: z.object({
        id: zUuid.optional(),
        base_path: zText(500).optional(),
        mount_points: z.array(zText(500)).max(100).default([]),
        safe_mount: zBool,
      }),
      result: zOrganizationResult,
      async handler({ caller, params, body }) {
        const stored = (await organizations.get(params.id)).mount_base as string;
        const { base, points } = normalizeMountPoints(
          body.mount_points,
          body.safe_mount,
          body.base_path ?? stored,
        );
        return organizations.patch(
          caller!,
          params.id,
          { mount_points: JSON.stringify(points), safe_mount: body.safe_mount, mount_base: base },
          'mount',
        );
      },
    }),
    route({
      method: 'put',
      path: '/organizations/:id/disable/:clusterId',
      tag: 'organizations',
      summary:
        'Disable a cluster manager for this organization (its scheduling skips it); 404 for one the ' +
        'organization may not use.',
      params: clusterParams,
      result: zOrganizationResult,
      async handler({ caller, params }) {
        await clusters.setDisabled(params.id, params.clusterId, true);
        return organizations.setClusterDisabled(caller!, params.id, params.clusterId, true);
      },
    }),
    route({
      method: 'delete',
      path: '/organizations/:id/disable/:clusterId',
      tag: 'organizations',
      summary: 'Re-enable a cluster manager for this organization.',
      params: clusterParams,
      result: zOrganizationResult,
      async handler({ caller, params }) {
        await clusters.setDisabled(params.id, params.clusterId, false);
        return organizations.setClusterDisabled(caller!, params.id, params.clusterId, false);
      },
    }),
  ];
}
