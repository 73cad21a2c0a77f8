import { z } from 'zod';
import { route, type RouteDefinition } from '../http/route.js';
import { idParams, zBool, zInt, zName, zResources, zStringList, zUuid } from '../http/schemas.js';
import { zDone, zGroupResult } from './results.js';
import type { Services } from '../services/index.js';

const groupFields = {
  organization: zUuid.optional(),
  name: zName,
  members: zStringList.optional(),
  admins: zStringList.optional(),
  quota: zResources.optional(),
  use_free: zBool.optional(),
  gid: zInt.pipe(z.number().min(1000, 'invalid gid: must be at least 1000').max(2_147_483_647)).optional(),
};

export function groupRoutes(services: Services): RouteDefinition[] {
  const { groups } = services;
  return [
    route({
      method: 'get',
      path: '/group',
      tag: 'groups',
      summary:
        'Groups of the current organization (a group admin: theirs; the super admin: all, or ?organization=).',
      query: z.object({ organization: zUuid.optional() }),
      result: z.array(zGroupResult),
      async handler({ caller, role, query }) {
        return groups.list(caller!, role!, query.organization);
      },
    }),
    route({
      method: 'post',
      path: '/group',
      tag: 'groups',
      summary: 'Create a group, its namespace and ResourceQuota; its quota fits in the organization quota.',
      status: 201,
      body: z.object(groupFields).strict(),
      result: zGroupResult,
      async handler({ caller, role, body }) {
        return groups.create(caller!, role!, body);
      },
    }),
    route({
      method: 'put',
      path: '/group/:id',
      tag: 'groups',
      summary: 'Update a group; a quota change updates its ResourceQuota.',
      params: idParams,
      body: z.object({ ...groupFields, name: zName.optional(), id: zUuid.optional() }).strict(),
      result: zGroupResult,
      async handler({ caller, params, body }) {
        return groups.update(caller!, params.id, body);
      },
    }),
    route({
      method: 'delete',
      path: '/group/:id',
      tag: 'groups',
      summary: 'Delete a group and its namespace.',
      params: idParams,
      result: zDone,
      async handler({ caller, params }) {
        await groups.remove(caller!, params.id);
        return true;
      },
    }),
  ];
}
