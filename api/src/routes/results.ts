import { z } from 'zod';
import { ROLES } from '../authorization.js';

// The `result` shapes several routes share. They are what the OpenAPI document publishes
// and what the console's types are generated from; under test every answer is parsed with
// its route's schema, so they stay true. Objects are strict: a field a handler adds
// without declaring it fails the tests instead of reaching the console untyped.

export const zRole = z.enum(ROLES);

export const zDone = z.boolean().describe('Always true: the change was made.');

export const zResourcesResult = z.strictObject({
  cpu: z.number().describe('millicores'),
  memory: z.number().describe('MB'),
  disk: z.number().describe('MB'),
});

export const zTimestamp = z.iso.datetime({ offset: true });

export const zSessionResult = z.strictObject({
  access_token: z.string(),
  refresh_token: z.string(),
});

/** A member's share of one group's quota (fixed, or a percentage of the group's). */
export const zMemberQuota = z.strictObject({
  group: z.uuid(),
  cpu: z.number(),
  memory: z.number(),
  disk: z.number(),
  use_free: z.boolean(),
  use_percentage: z.boolean(),
});

export const ALGORITHMS = ['round_robin', 'fill_all', 'fill_one'] as const;

export const zOrganizationResult = z.strictObject({
  id: z.uuid(),
  name: z.string(),
  slug: z.string(),
  creation_date: zTimestamp,
  quota: zResourcesResult,
  admins: z.array(z.uuid()),
  members: z.array(z.uuid()),
  automatic_resources: zResourcesResult,
  use_automatic_resources: z.boolean(),
  enable_provisioner: z.boolean(),
  lock_provisioner: z.boolean(),
  use_free: z.boolean(),
  registry: z
    .strictObject({
      use_custom: z.boolean(),
      url: z.string().optional(),
      username: z.string().optional(),
      password: z.string().optional().describe("'********' when one is set: it is write-only."),
    })
    .describe('The image registry; the password is never sent back.'),
  mount_points: z.array(z.string()),
  safe_mount: z.boolean(),
  base_path: z.string().describe('Every mount point lives under it (spec 3 §2.3 Mount Points).'),
  algorithm: z.enum(ALGORITHMS),
  disabled_clusters: z.array(z.string()),
  role: zRole.optional().describe("The caller's role in it (lists and the current organization)."),
});

export const zGroupResult = z.strictObject({
  id: z.uuid(),
  uuid: z.uuid(),
  organization: z.uuid(),
  organization_name: z.string(),
  name: z.string(),
  quota: zResourcesResult,
  admins: z.array(z.uuid()),
  members: z.array(z.uuid()),
  gid: z.number().int(),
  use_free: z.boolean(),
});

export const zIdName = z.strictObject({ id: z.uuid(), name: z.string() });
