import { z } from 'zod';
import { HANDLED, route, type RouteDefinition } from '../http/route.js';
import { zBool, zNumber, zText } from '../http/schemas.js';
import { SORTS } from '../services/sandboxes.js';
import type { Services } from '../services/index.js';
import { zTimestamp } from './results.js';

// Shapes only: the rules of spec 1 §5 (name characters, version format, entrypoint, resources)
// are the service's, answered as 400s with the spec's messages.

/** metadata.name: a uuid for the API's objects, any DNS-1123 name for kubectl's. */
const zObjectName = z
  .string()
  .max(253, 'at most 253 characters')
  .regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, 'must be a sandbox id (a DNS-1123 name)');
const uuidParams = z.object({ uuid: zObjectName }).strict();

const zVariable = z
  .object({ name: zText(256, { trim: false }), value: zText(10_000, { trim: false }) })
  .strict();
const zVariables = z.array(zVariable).max(500, 'at most 500 variables');
const zPermission = z
  .object({ read: zBool.optional(), write: zBool.optional(), execute: zBool.optional() })
  .strict();

const zSandboxForm = z
  .object({
    uuid: zText(253).optional(),
    image_id: zText(500).optional(),
    container_id: zText(253).optional(),
    name: zText(1000),
    version: zText(1000).optional(),
    description: zText(10_000).optional(),
    entrypoint: zText(4096).optional(),
    avatar: zText(1000).optional(),
    file_avatar: z
      .object({
        file_name: zText(255).optional(),
        file_size: zNumber.optional(),
        file_body: zText(400_000, { trim: false }),
      })
      .strict()
      .optional(),
    tags: z.array(zText(100)).max(50, 'at most 50 tags').optional(),
    variables: zVariables.optional(),
    constraints: z
      .object({
        cpu: zNumber.pipe(z.number().max(1e9, 'too large')),
        memory: zNumber.pipe(z.number().max(1e12, 'too large')),
        disk: zNumber.pipe(z.number().max(1e12, 'too large')),
      })
      .strict()
      .optional(),
    mount_points: z
      .array(z.object({ source: zText(1000), destination: zText(1000), checked: zBool.optional() }).strict())
      .max(50, 'at most 50 mount points')
      .optional(),
    architecture: z.enum(['amd64', 'arm']).optional(),
    gpu_required: zBool.optional(),
    permissions: z
      .record(zText(64), zPermission)
      .refine((p) => Object.keys(p).length <= 200, 'at most 200 groups')
      .optional(),
    source_image: z
      .object({ image: zText(500), version: zText(200).optional() })
      .strict()
      .optional(),
    visibility: z
      .object({ type: z.enum(['private', 'public', 'group']).optional(), locked: zBool.optional() })
      .strict()
      .optional(),
    owner: zText(253).optional(),
    prettyOwner: zText(500).optional(),
  })
  .strict();

const zSandbox = z.strictObject({
  uuid: z.string(),
  name: z.string(),
  version: z.string(),
  description: z.string(),
  entrypoint: z.string(),
  architecture: z.enum(['amd64', 'arm']),
  gpu_required: z.boolean(),
  author_id: z.string().describe('User id of the owner (empty when none).'),
  author: z.string(),
  avatar: z.string().describe('URL of the avatar, empty when there is none.'),
  constraints: z
    .strictObject({ cpu: z.number(), memory: z.number(), disk: z.number() })
    .describe('cpu in millicores, memory and disk in MB'),
  creation_date: zTimestamp,
  update_date: zTimestamp,
  history: z.array(z.strictObject({ action: z.string(), username: z.string(), time: z.string() })),
  image_id: z.string(),
  image_registry: z.string(),
  registry_name: z.string(),
  image_ref: z.string().describe('The saved image, ref@digest; empty: the source image runs.'),
  organization_id: z.string(),
  mount_points: z.array(z.strictObject({ source: z.string(), destination: z.string() })),
  permissions: z.record(
    z.string(),
    z.strictObject({ read: z.boolean(), write: z.boolean(), execute: z.boolean() }),
  ),
  visibility: z.strictObject({ type: z.enum(['private', 'public', 'group']), locked: z.boolean() }),
  user_access: z
    .strictObject({ read: z.boolean(), write: z.boolean(), execute: z.boolean(), owner: z.boolean() })
    .describe("The caller's access: view, edit, use, and the owner's actions."),
  tags: z.array(z.string()),
  variables: z.array(z.strictObject({ name: z.string(), value: z.string() })),
  source_image: z.strictObject({ image: z.string(), version: z.string() }),
  phase: z.string().describe('Pending, Ready or Error (the operator).'),
});

const zListQuery = z
  .object({
    execution: zBool.optional(),
    page: zNumber.pipe(z.number().int().min(0).max(1e6)).default(0),
    size: z
      .union([z.literal(10), z.literal(30), z.literal(50), z.enum(['10', '30', '50']).transform(Number)])
      .default(30),
    sort: z.enum(SORTS).default('creation_date'),
    order: z.enum(['asc', 'desc']).default('desc'),
    search: zText(200).optional(),
    mine: zBool.optional(),
    visibility: z.enum(['private', 'public']).optional(),
    tag: zText(100).optional(),
  })
  .strict();

const zPage = z.strictObject({
  sandboxes: z.array(zSandbox),
  total: z.number().int().describe('How many match, over all pages.'),
  page: z.number().int(),
  size: z.number().int(),
});
const zExecutable = z.strictObject({
  groups: z
    .array(z.strictObject({ name: z.string(), sandboxes: z.array(zSandbox) }))
    .describe('?execution=true: the sandboxes the caller may use, by name, newest first.'),
});

export function sandboxRoutes(services: Services): RouteDefinition[] {
  const { sandboxes } = services;
  return [
    route({
      method: 'get',
      path: '/sandbox',
      tag: 'sandboxes',
      summary:
        'A page of the sandboxes the caller may see (search, mine, visibility, tag, sort); ?execution=true: the usable ones grouped by name.',
      query: zListQuery,
      result: z.union([zPage, zExecutable]),
      async handler({ caller, query }) {
        if (query.execution) return sandboxes.executable(caller!);
        return sandboxes.list(caller!, { ...query, size: query.size as 10 | 30 | 50 });
      },
    }),
    route({
      method: 'get',
      path: '/sandbox/:uuid',
      tag: 'sandboxes',
      summary: 'One sandbox.',
      params: uuidParams,
      result: zSandbox,
      async handler({ caller, params }) {
        return sandboxes.get(caller!, params.uuid);
      },
    }),
    route({
      method: 'post',
      path: '/sandbox',
      tag: 'sandboxes',
      summary:
        "Create a sandbox (the Sandbox form); with container_id the builder's container is committed and its ref@digest recorded.",
      status: 201,
      bodyLimit: '1mb',
      body: zSandboxForm,
      result: zSandbox,
      async handler({ caller, body }) {
        return sandboxes.create(caller!, body);
      },
    }),
    route({
      method: 'put',
      path: '/sandbox/:uuid',
      tag: 'sandboxes',
      summary: 'Update a sandbox (edit permission). 409 while workflows of other people use it.',
      params: uuidParams,
      bodyLimit: '1mb',
      body: zSandboxForm,
      result: zSandbox,
      async handler({ caller, params, body }) {
        return sandboxes.update(caller!, params.uuid, body);
      },
    }),
    route({
      method: 'delete',
      path: '/sandbox',
      tag: 'sandboxes',
      summary:
        'Delete sandboxes (owner). Without force, those used by workflows are kept and come back with the workflows; forced, those workflows become invalid.',
      query: z.object({ force: zBool.default(false) }).strict(),
      body: z.object({ sandboxes: z.array(zObjectName).min(1).max(500, 'at most 500 sandboxes') }).strict(),
      result: z.strictObject({
        deleted_sandbox: z.array(z.string()),
        workflows: z.array(
          z.strictObject({ uuid: z.string(), name: z.string(), sandboxes: z.array(z.string()) }),
        ),
      }),
      async handler({ caller, query, body }) {
        return sandboxes.remove(caller!, body.sandboxes, query.force);
      },
    }),
    route({
      method: 'post',
      path: '/sandbox/:uuid/clone',
      tag: 'sandboxes',
      summary: 'Clone a sandbox the caller may see into one of their own (named <name>_copy).',
      status: 201,
      params: uuidParams,
      result: zSandbox,
      async handler({ caller, params }) {
        return sandboxes.clone(caller!, params.uuid);
      },
    }),
    route({
      method: 'put',
      path: '/sandbox/:uuid/variables',
      tag: 'sandboxes',
      summary: 'Replace the variables (owner); empty names are dropped.',
      params: uuidParams,
      body: z.object({ variables: zVariables }).strict(),
      result: zSandbox,
      async handler({ caller, params, body }) {
        return sandboxes.variables(caller!, params.uuid, body.variables);
      },
    }),
    route({
      method: 'put',
      path: '/sandbox/:uuid/name',
      tag: 'sandboxes',
      summary: 'Rename (owner).',
      params: uuidParams,
      body: z.object({ name: zText(1000) }).strict(),
      result: zSandbox,
      async handler({ caller, params, body }) {
        return sandboxes.rename(caller!, params.uuid, body.name);
      },
    }),
    route({
      method: 'get',
      path: '/sandbox/:uuid/avatar',
      tag: 'sandboxes',
      summary: 'The avatar image; 404 when the sandbox has none (the console shows an empty avatar).',
      params: uuidParams,
      raw: { status: 200, contentType: 'image/png', description: 'The avatar (image/png or image/jpeg).' },
      async handler({ caller, params, res }) {
        const avatar = await sandboxes.avatar(caller!, params.uuid);
        res.status(200).type(avatar.type).set('Cache-Control', 'private, no-cache').send(avatar.bytes);
        return HANDLED;
      },
    }),
  ];
}
