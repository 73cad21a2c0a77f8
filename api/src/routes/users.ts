import { z } from 'zod';
import { forbidden, unprocessable } from '../errors.js';
import { route, type RouteDefinition } from '../http/route.js';
import { idParams, zBool, zEmail, zInt, zNonNegative, zStringList, zUuid } from '../http/schemas.js';
import { zDone, zMemberQuota, zResourcesResult, zRole, zTimestamp } from './results.js';
import type { Services } from '../services/index.js';

const usernameResult = z.strictObject({
  id: z.uuid(),
  email: z.string(),
  organization: z.uuid().nullable().describe('One of their organizations; null: none.'),
});

const groupTableResult = z.strictObject({
  id: z.uuid(),
  name: z.string(),
  quota: zResourcesResult,
  users: z.array(
    z.strictObject({
      uuid: z.string().describe('group id - user id'),
      id: z.uuid(),
      name: z.string(),
      email: z.string(),
      uid: z.number().int().nullable(),
      admin: z.boolean(),
      quota: zMemberQuota,
      last_sandbox_created: zTimestamp.nullable(),
    }),
  ),
});

const userResult = z.strictObject({
  id: z.uuid(),
  email: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  fullName: z.string(),
  creation_time: zTimestamp,
  verified: z.boolean(),
  uid: z.number().int().nullable().describe('In the (first listed) organization.'),
  organizations: z.array(
    z.strictObject({ id: z.uuid(), name: z.string(), role: zRole, uid: z.number().int() }),
  ),
  groups: z.array(
    z.strictObject({ id: z.uuid(), name: z.string(), organization: z.uuid(), admin: z.boolean() }),
  ),
  quota: z.array(zMemberQuota),
});

export function userRoutes(services: Services): RouteDefinition[] {
  const { members } = services;
  return [
    route({
      method: 'get',
      path: '/admin/username',
      tag: 'users',
      summary: 'id, email and organization of the people an admin can pick.',
      result: z.array(usernameResult),
      async handler({ caller }) {
        return members.usernames(caller!);
      },
    }),
    route({
      method: 'get',
      path: '/admin/group/users',
      tag: 'users',
      summary: 'One table of members per group of the current organization (a group admin: their groups).',
      result: z.array(groupTableResult),
      async handler({ caller, role }) {
        return members.groupTables(caller!, role!);
      },
    }),
    route({
      method: 'get',
      path: '/admin/users',
      tag: 'users',
      summary: 'Every account with its organizations and groups (super admin).',
      result: z.array(userResult),
      async handler() {
        return members.allUsers();
      },
    }),
    route({
      method: 'get',
      path: '/admin/users/organization',
      tag: 'users',
      summary: 'The members of the current organization.',
      result: z.array(userResult),
      async handler({ caller }) {
        return caller!.currentOrganizationId ? members.organizationUsers(caller!.currentOrganizationId) : [];
      },
    }),
    route({
      method: 'put',
      path: '/user/:id/quota',
      tag: 'users',
      summary: "Set a member's quota in a group (fixed or percentage) and their UID.",
      params: idParams,
      body: z.object({
        quota: z
          .object({
            group: zUuid,
            cpu: zNonNegative,
            memory: zNonNegative,
            disk: zNonNegative,
            use_free: zBool.optional(),
            use_percentage: zBool.optional(),
            use_provisioner: zBool.optional(),
          })
          .strict(),
        uid: zInt.pipe(z.number().min(1000, 'must be at least 1000').max(2_147_483_647)).optional(),
      }),
      result: zDone,
      async handler({ caller, role, organizationId, params, body }) {
        if (!organizationId) throw unprocessable('quota.group: no current organization');
        await members.setQuota(caller!, role!, organizationId, params.id, body);
        return true;
      },
    }),
    route({
      method: 'post',
      path: '/invite',
      tag: 'users',
      summary:
        'Invite people by e-mail to an organization (only the super admin chooses it) and a default group.',
      status: 201,
      body: z.object({
        users: zStringList.pipe(z.array(zEmail).min(1, 'Required').max(100)),
        organization: zUuid.optional(),
        default_group: zUuid.optional(),
      }),
      result: z.array(z.strictObject({ email: z.string() })),
      async handler({ caller, role, body }) {
        const organizationId = body.organization ?? caller!.currentOrganizationId;
        if (role !== 'admin' && body.organization && body.organization !== caller!.currentOrganizationId) {
          throw forbidden('organization: only the super admin chooses the organization');
        }
        if (!organizationId) throw unprocessable('organization: Required');
        return members.invite(caller!, organizationId, body.users, body.default_group);
      },
    }),
    route({
      method: 'delete',
      path: '/user/:id',
      tag: 'users',
      summary: 'Delete an account (super admin).',
      params: idParams,
      result: zDone,
      async handler({ caller, params }) {
        await members.deleteUser(caller!, params.id);
        return true;
      },
    }),
    route({
      method: 'delete',
      path: '/user/:id/group/:group',
      tag: 'users',
      summary: 'Remove a member from a group.',
      params: z.object({ id: zUuid, group: zUuid }).strict(),
      result: zDone,
      async handler({ caller, params }) {
        await members.removeFromGroup(caller!, params.id, params.group);
        return true;
      },
    }),
    route({
      method: 'delete',
      path: '/user/:id/organization/:organization',
      tag: 'users',
      summary: 'Remove a member from an organization (and its groups).',
      params: z.object({ id: zUuid, organization: zUuid }).strict(),
      result: zDone,
      async handler({ caller, params }) {
        await members.removeFromOrganization(caller!, params.id, params.organization);
        return true;
      },
    }),
  ];
}
